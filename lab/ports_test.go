package lab

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func TestPickRange(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi int }{
		{32768, 60999, 20000, 32767}, // Linux's default
		{20500, 60999, 61000, 65535}, // too little room below: above
		{1024, 65535, 0, 0},          // no room: the kernel chooses
		{0, 0, 0, 0},                 // unknown
	} {
		if lo, hi := pickRange(c.lo, c.hi); lo != c.wantLo || hi != c.wantHi {
			t.Errorf("pickRange(%d, %d) = %d, %d; want %d, %d", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// TestPortPicker picks a real-node lab's nine ports on this machine: they
// differ, lie outside the kernel's ephemeral range, stay bound until close
// and are free after it.
func TestPortPicker(t *testing.T) {
	p := NewPortPicker()
	ports, err := p.picks(9)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := readEphemeralRange()
	t.Logf("ephemeral range %d-%d; picked %v", lo, hi, ports)
	seen := map[int]bool{}
	for _, port := range ports {
		if seen[port] {
			t.Errorf("port %d picked twice in %v", port, ports)
		}
		seen[port] = true
		if p.low > 0 && port >= lo && port <= hi {
			t.Errorf("port %d is in the ephemeral range %d-%d", port, lo, hi)
		}
		if l, err := net.Listen("tcp", net.JoinHostPort(state.Host, strconv.Itoa(port))); err == nil {
			l.Close()
			t.Errorf("port %d is not held before close", port)
		}
	}
	p.Close()
	for _, port := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort(state.Host, strconv.Itoa(port)))
		if err != nil {
			t.Errorf("port %d is not free after close: %v", port, err)
			continue
		}
		l.Close()
	}
}

func TestPortTakenLine(t *testing.T) {
	line := "error: failed to create listener: failed to listen on 127.0.0.1:42897: listen tcp 127.0.0.1:42897: bind: address already in use"
	if got := portTakenLine([]string{"Global flags:", "  " + line, "--- exit code 1 ---"}); got != line {
		t.Errorf("portTakenLine = %q, want %q", got, line)
	}
	if got := portTakenLine([]string{"E1202 etcdserver: no space"}); got != "" {
		t.Errorf("portTakenLine of a log without a taken port = %q, want none", got)
	}
}

// TestClearForRetry leaves the lock up holds and removes the rest of a
// failed start.
func TestClearForRetry(t *testing.T) {
	l := testLab(t)
	release, err := lock(l.Layout.Lock())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, f := range []string{l.Layout.Log("etcd"), filepath.Join(l.Layout.Dir, "lab.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.clearForRetry(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(l.Layout.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || filepath.Join(l.Layout.Dir, entries[0].Name()) != l.Layout.Lock() {
		t.Errorf("left %v, want only the lock", entries)
	}
}
