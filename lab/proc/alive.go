package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether pid is a live process (not a zombie) whose command
// line contains marker: the lab's state directory, passed to every component.
// A pid the kernel recycled for an unrelated program is not "alive" for us.
func Alive(pid int, marker string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if zombie(pid) {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		// No procfs (not Linux): trust the signal probe.
		return !os.IsNotExist(err) || !procfs()
	}
	return bytes.Contains(cmdline, []byte(marker))
}

// zombie reports a process that exited but was not reaped yet.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func procfs() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
