// Package serve is kubectl chain serve, the watcher in the cluster: the
// engine follows its scopes and judges their workloads on every change,
// and serve keeps the verdicts as Prometheus metrics and, on a change,
// records an Event; it also prints the manifests that run it.
package serve

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Health values of kubectl_chain_workload_health.
const (
	HealthHealthy     = 0
	HealthBroken      = 1
	HealthProgressing = 2
	HealthUnknown     = 3
)

// HealthValue is a verdict's health as the metric's value.
func HealthValue(h chain.Health) float64 {
	switch h {
	case chain.Healthy:
		return HealthHealthy
	case chain.Broken:
		return HealthBroken
	case chain.Progressing:
		return HealthProgressing
	}
	return HealthUnknown
}

// Key names a workload: its series' labels.
type Key struct{ Namespace, Kind, Name string }

func keyOf(r *chain.Report) Key {
	return Key{Namespace: r.Namespace, Kind: string(r.Kind), Name: r.Name}
}

// Verdict is what the metrics keep of a workload's report.
type Verdict struct {
	Health      chain.Health
	Link, Cause string
	// Since is when the verdict last changed.
	Since time.Time
}

// Change is a workload whose verdict changed at an Update: From is the
// zero Verdict for one first seen.
type Change struct {
	Key      Key
	From, To Verdict
	Report   *chain.Report
}

// Metrics holds the series of the workloads judged. Its labels are
// bounded by the workloads: no pod names, no messages.
type Metrics struct {
	reg      *prometheus.Registry
	health   *prometheus.GaugeVec
	broken   *prometheus.GaugeVec
	changed  *prometheus.GaugeVec
	judged   prometheus.Counter
	lastJudg prometheus.Gauge
	requests prometheus.Counter
	errors   *prometheus.CounterVec

	mu    sync.Mutex
	state map[Key]Verdict
	ready bool
}

// NewMetrics registers the series, with the Go and process collectors, on
// a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		health: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kubectl_chain_workload_health",
			Help: "The workload's verdict: 0 healthy, 1 broken, 2 progressing, 3 unknown."}, []string{"namespace", "kind", "name"}),
		broken: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kubectl_chain_workload_broken_info",
			Help: "1 for a broken workload, with the first broken link and its cause; absent otherwise."}, []string{"namespace", "kind", "name", "link", "cause"}),
		changed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kubectl_chain_workload_verdict_changed_timestamp_seconds",
			Help: "When the workload's verdict (health, link, cause) last changed, in Unix seconds: time() minus it is how long it has held."}, []string{"namespace", "kind", "name"}),
		judged: prometheus.NewCounter(prometheus.CounterOpts{Name: "kubectl_chain_judgements_total",
			Help: "How many times the workloads were judged (after a change, or on the clock)."}),
		lastJudg: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kubectl_chain_last_judgement_timestamp_seconds",
			Help: "When the workloads were last judged, in Unix seconds."}),
		requests: prometheus.NewCounter(prometheus.CounterOpts{Name: "kubectl_chain_api_requests_total",
			Help: "Requests the reader made to the API server (lists and watches; a watch is one request however long it stays open)."}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kubectl_chain_api_errors_total",
			Help: "Times the reader lost the API server (reason: unreachable) or was refused a watch (reason: forbidden)."}, []string{"reason"}),
		state: map[Key]Verdict{},
	}
	m.reg.MustRegister(m.health, m.broken, m.changed, m.judged, m.lastJudg, m.requests, m.errors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Requests adds n requests of the reader.
func (m *Metrics) Requests(n int) { m.requests.Add(float64(n)) }

// Error counts one reader error of reason (unreachable, forbidden).
func (m *Metrics) Error(reason string) { m.errors.WithLabelValues(reason).Inc() }

// Update sets the series to the reports of one judgement and returns the
// workloads whose verdict changed. A workload no report names any more
// (deleted) loses its series.
func (m *Metrics) Update(reports []chain.Report, now time.Time) []Change {
	m.mu.Lock()
	defer m.mu.Unlock()
	var changes []Change
	seen := map[Key]bool{}
	for i := range reports {
		r := &reports[i]
		k := keyOf(r)
		seen[k] = true
		v := Verdict{Health: r.Verdict.Health, Link: string(r.Verdict.Link), Cause: string(r.Verdict.Cause), Since: now}
		old, known := m.state[k]
		if known && old.Health == v.Health && old.Link == v.Link && old.Cause == v.Cause {
			continue
		}
		if known && old.Health == chain.Broken {
			m.broken.DeleteLabelValues(k.Namespace, k.Kind, k.Name, old.Link, old.Cause)
		}
		m.state[k] = v
		m.health.WithLabelValues(k.Namespace, k.Kind, k.Name).Set(HealthValue(v.Health))
		m.changed.WithLabelValues(k.Namespace, k.Kind, k.Name).Set(float64(now.UnixNano()) / 1e9)
		if v.Health == chain.Broken {
			m.broken.WithLabelValues(k.Namespace, k.Kind, k.Name, v.Link, v.Cause).Set(1)
		}
		changes = append(changes, Change{Key: k, From: old, To: v, Report: r})
	}
	for k, old := range m.state {
		if seen[k] {
			continue
		}
		delete(m.state, k)
		m.health.DeleteLabelValues(k.Namespace, k.Kind, k.Name)
		m.changed.DeleteLabelValues(k.Namespace, k.Kind, k.Name)
		if old.Health == chain.Broken {
			m.broken.DeleteLabelValues(k.Namespace, k.Kind, k.Name, old.Link, old.Cause)
		}
	}
	m.judged.Inc()
	m.lastJudg.Set(float64(now.UnixNano()) / 1e9)
	m.ready = true
	return changes
}

// Handler serves /metrics, /healthz (the process answers) and /readyz
// (the workloads were judged once: the mirror has read the scope).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		m.mu.Lock()
		ready := m.ready
		m.mu.Unlock()
		if !ready {
			http.Error(w, "not ready: the workloads have not been read yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}
