package lab

import (
	"bytes"
	"io"
	"os"
	"strings"
)

// tailBytes bounds how much of a log is read to find its last lines.
const tailBytes = 64 << 10

// lastLines returns up to n last lines of the file at path.
func lastLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := info.Size() - tailBytes
	if off < 0 {
		off = 0
	}
	b, err := io.ReadAll(io.NewSectionReader(f, off, info.Size()-off))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(bytes.TrimRight(b, "\n")), "\n")
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // the first line is cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	return lines, nil
}
