package proc

import (
	"path/filepath"
	"testing"
	"time"
)

func TestSpawnAliveStop(t *testing.T) {
	dir := t.TempDir()
	marker := "\x00" + dir + "\x00"
	// sh ignores nothing here: SIGTERM ends it. The directory is an argument
	// so that the marker finds it in the command line; the command after
	// sleep keeps sh from replacing itself with sleep (dash execs a lone
	// last command), which would drop the directory from the command line
	// a moment after the start.
	cmd, err := Spawn("/bin/sh", []string{"-c", "sleep 30; exit 0", "sh", dir}, filepath.Join(dir, "logs", "x.log"), filepath.Join(dir, "pids", "x.pid"))
	if err != nil {
		t.Fatal(err)
	}
	go cmd.Wait() // reap it as `up` does
	pid, err := ReadPid(filepath.Join(dir, "pids", "x.pid"))
	if err != nil || pid != cmd.Process.Pid {
		t.Fatalf("ReadPid = %d, %v; want %d", pid, err, cmd.Process.Pid)
	}
	if !Alive(pid, marker) {
		t.Fatal("spawned process is not alive")
	}
	if Alive(pid, "\x00/some/other/lab\x00") {
		t.Error("process counted alive for another lab's marker")
	}
	if killed := Stop([]int{pid}, marker, 5*time.Second); len(killed) != 0 {
		t.Errorf("needed SIGKILL: %v", killed)
	}
	if Alive(pid, marker) {
		t.Error("process alive after Stop")
	}
}

func TestReadPidMissing(t *testing.T) {
	pid, err := ReadPid(filepath.Join(t.TempDir(), "none.pid"))
	if pid != 0 || err != nil {
		t.Errorf("ReadPid(missing) = %d, %v; want 0, nil", pid, err)
	}
}
