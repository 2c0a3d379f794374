package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestHoldMemory: the soft limit stays at the floor while the live heap
// is small, and rises to 1.5 times the live heap past two thirds of it.
func TestHoldMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const floor = 64 << 20
	once := func() int64 {
		tick := make(chan time.Time, 1)
		tick <- time.Now()
		close(tick)
		holdMemory(floor, tick)
		return debug.SetMemoryLimit(-1)
	}
	runtime.GC()
	if got := once(); got != floor {
		t.Errorf("limit %d MiB with a small live heap, want the floor, %d MiB", got>>20, floor>>20)
	}
	live := make([]byte, 128<<20)
	for i := range live {
		live[i] = byte(i) // touched: a live heap the collector counts
	}
	runtime.GC()
	if got := once(); got < 192<<20 {
		t.Errorf("limit %d MiB with 128 MiB live, want at least 192 MiB", got>>20)
	}
	runtime.KeepAlive(live)
}
