package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is a followed that records what the loop asks of it.
type script struct {
	mu       sync.Mutex
	walks    []bool // fresh, by walk
	reads    []time.Time
	finished int
	doneAt   int // the walk that says done, 0 never
}

func (s *script) walk(_ context.Context, _ time.Time, fresh bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.walks = append(s.walks, fresh)
	return s.doneAt > 0 && len(s.walks) >= s.doneAt, nil
}

func (s *script) read(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = append(s.reads, time.Now())
	return nil
}

func (s *script) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished++
	return errors.New("finished")
}

func (s *script) clear() {}

func (s *script) counts() (walks, fresh, reads int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.walks {
		if f {
			fresh++
		}
	}
	return len(s.walks), fresh, len(s.reads)
}

// TestFollowPace: the clock walks again on every tick without reading; a
// change is read once its burst settles and the next walk is fresh; the
// end of the context finishes the follow, and a done walk ends it at once.
func TestFollowPace(t *testing.T) {
	e := New(Request{Timeout: time.Minute}, nil)
	s := &script{}
	changed := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan error, 1)
	go func() {
		out <- e.follow(ctx, s, pace{tick: 20 * time.Millisecond, settle: 50 * time.Millisecond}, changed, nil, false)
	}()
	waitFor(t, "three walks", func() bool { walks, _, _ := s.counts(); return walks >= 3 })
	if _, fresh, reads := s.counts(); fresh != 1 || reads != 0 {
		t.Fatalf("ticks alone: %d fresh walks, %d reads; want only the first fresh, no read", fresh, reads)
	}
	signalled := time.Now()
	changed <- struct{}{}
	waitFor(t, "a fresh walk after the change", func() bool { _, fresh, _ := s.counts(); return fresh == 2 })
	s.mu.Lock()
	reads := s.reads
	s.mu.Unlock()
	if len(reads) != 1 || reads[0].Sub(signalled) < 50*time.Millisecond {
		t.Errorf("reads %v after the change at %v: want one, once the burst settled (50ms)", reads, signalled)
	}
	cancel()
	if err := <-out; err == nil || err.Error() != "finished" || s.finished != 1 {
		t.Errorf("the end of the context: %v, finished %d times", err, s.finished)
	}

	s = &script{doneAt: 2}
	err := New(Request{Timeout: time.Minute}, nil).follow(context.Background(), s, waitPace("it"), nil, nil, false)
	if walks, _, _ := s.counts(); err == nil || walks != 2 || s.finished != 1 {
		t.Errorf("done at the second walk: %v after %d walks", err, walks)
	}
}

// waitFor polls ok for up to 5 seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
	}
}

// TestFollowTimeout: the timeout says what was waited for, then finishes
// with the last verdict; a refused watch turns to re-reading on the clock.
func TestFollowTimeout(t *testing.T) {
	var notes bytes.Buffer
	e := New(Request{Timeout: 300 * time.Millisecond}, &notes)
	ctx, cancel := context.WithTimeout(context.Background(), e.Timeout)
	defer cancel()
	forbidden := make(chan string, 1)
	forbidden <- "cannot watch pods"
	s := &script{}
	if err := e.follow(ctx, s, waitPace("the rollout"), nil, forbidden, false); err == nil || s.finished != 1 {
		t.Errorf("timeout: %v, finished %d times", err, s.finished)
	}
	if _, _, reads := s.counts(); reads != 1 {
		t.Errorf("%d reads: want one, at once, on the refused watch (the next every 2s)", reads)
	}
	want := "cannot watch pods: re-reading every 2s instead\ntimed out after 300ms waiting for the rollout\n"
	if got := notes.String(); !strings.HasSuffix(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}
