package kubelet

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// progressPeriod is how often the kubelet logs how well it keeps up.
const progressPeriod = 10 * time.Second

// progress tells whether the simulated kubelet keeps up with the pods bound
// to its nodes, apart from the API server it talks to: how long a pod takes
// from the moment a node sees it to the moment its containers run and are
// ready (the kubelet's own work, image pulls included), and how long a
// status waits in a node's status manager until it is written (a slow API
// server's share). Every period with news, one line in the kubelet's log.
type progress struct {
	mu      sync.Mutex
	ready   []time.Duration
	written []time.Duration
}

// podReady records that a pod seen after d turned ready.
func (p *progress) podReady(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ready = append(p.ready, d)
}

// statusWritten records a status written d after it was handed over.
func (p *progress) statusWritten(d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = append(p.written, d)
}

// take returns the period's figures and starts a new period.
func (p *progress) take() (ready, written []time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ready, written = p.ready, p.written
	p.ready, p.written = nil, nil
	return ready, written
}

// logLoop logs the figures of each period that had any until ctx ends.
func (p *progress) logLoop(ctx context.Context, clk clock.WithTicker) {
	every(ctx, clk, progressPeriod, p.log)
}

// log logs the period's figures, if it had any, and starts a new period.
func (p *progress) log() {
	ready, written := p.take()
	if len(ready) == 0 && len(written) == 0 {
		return
	}
	klog.InfoS("Keeping up", "podsReady", len(ready),
		"seenToReadyP50", quantile(ready, 0.5), "seenToReadyMax", quantile(ready, 1),
		"statusWrites", len(written),
		"statusWaitP50", quantile(written, 0.5), "statusWaitMax", quantile(written, 1))
}

// quantile is the q-quantile of ds (nearest rank), rounded to milliseconds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(max(int(math.Ceil(q*float64(len(s))))-1, 0), len(s)-1)
	return s[i].Round(time.Millisecond)
}
