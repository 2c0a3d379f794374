package kube

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Conn is what the watches know of the API server: whether the last
// attempt to open one failed on the way to it (refused, reset, a timeout,
// a server that answers 5xx or 429 while it starts), since when and why.
// The first watch that opens again clears it. A wait reads it to say that
// it lost the cluster and to tell a timeout with no cluster from one with
// a verdict.
type Conn struct {
	mu        sync.Mutex
	lostSince time.Time
	why       string
	// last is the last outage that ended, so one shorter than a caller's
	// look is still seen; outages counts them.
	last    Outage
	outages int
}

// Outage is a time the API server did not answer the watches.
type Outage struct {
	Since, Until time.Time
	Why          string
}

// Lost says since when the API server has not answered, and the error;
// a zero time while it answers.
func (c *Conn) Lost() (time.Time, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostSince, c.why
}

// Ended is the number of outages that have ended, and the last of them.
func (c *Conn) Ended() (int, Outage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.outages, c.last
}

// failed records an error opening a watch, if it is the connection's.
func (c *Conn) failed(ctx context.Context, err error) bool {
	if c == nil || ctx.Err() != nil || !unreachable(err) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lostSince.IsZero() {
		c.lostSince = time.Now()
	}
	c.why = strings.Join(strings.Fields(err.Error()), " ")
	return true
}

// answered records a watch that opened.
func (c *Conn) answered() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if !c.lostSince.IsZero() {
		c.last = Outage{Since: c.lostSince, Until: time.Now(), Why: c.why}
		c.outages++
	}
	c.lostSince, c.why = time.Time{}, ""
	c.mu.Unlock()
}

// unreachable says err is the way to the API server failing, not the
// server's answer about the request: a transport error, or a status the
// server gives while it cannot serve (5xx, 429).
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		code := st.Status().Code
		return code >= 500 || code == 429
	}
	return true
}

// retryAfter is the pause before a watch is opened again: watchRetry,
// doubled while the API server does not answer, up to watchRetryMax, so a
// long outage costs a few attempts a minute per watch, and a short one
// (a restart) is followed again within seconds.
func retryAfter(lost bool, last time.Duration) time.Duration {
	if !lost || last < watchRetry {
		return watchRetry
	}
	return min(2*last, watchRetryMax)
}

// watchRetryMax bounds the pause between attempts while the API server
// does not answer.
const watchRetryMax = 4 * time.Second

// SetLost records an outage as the watches would, and SetAnswered its
// end: for tests of what a wait says about them.
func (c *Conn) SetLost(since time.Time, why string) {
	c.mu.Lock()
	c.lostSince, c.why = since, why
	c.mu.Unlock()
}

// SetAnswered ends an outage SetLost began.
func (c *Conn) SetAnswered() { c.answered() }
