// Package proc starts a lab's component processes detached from the terminal
// and stops them again, by pid files, making sure a recycled pid never gets a
// signal meant for a component.
package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// Spawn starts exe with args in a new session (so it outlives the process
// that started it and no terminal signal reaches it), with stdin from
// /dev/null and stdout and stderr appended to logPath, and records its pid in
// pidPath. The caller may Wait on the returned command to notice an early
// exit; once the caller exits, init reaps it.
func Spawn(exe string, args []string, logPath, pidPath string) (*exec.Cmd, error) {
	for _, dir := range []string{filepath.Dir(logPath), filepath.Dir(pidPath)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(logPath), err)
	}
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	return cmd, nil
}

// ReadPid reads a pid file; a missing file is pid 0 and no error.
func ReadPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(string(trimSpace(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pid file %s is corrupt", path)
	}
	return pid, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
