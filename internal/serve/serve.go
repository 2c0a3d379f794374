package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// DefaultListen is where serve's HTTP endpoints listen.
const DefaultListen = ":8080"

// Config is kubectl chain serve's, compiled from its flags.
type Config struct {
	// Listen is the address of the HTTP endpoints.
	Listen string
	// Scopes are the namespaces followed, "" for all of them.
	Scopes []string
	// Events records a Kubernetes Event on a workload when its verdict
	// changes.
	Events bool
	// Resync is how often the workloads are judged again while a verdict
	// may change with time alone.
	Resync time.Duration
	// Request is the engine's: the selector, the grace, the clock, the
	// clientset.
	Request engine.Request
	// Notes is where serve says what it does and what goes wrong
	// (standard error).
	Notes io.Writer
}

// Run serves /metrics, /healthz and /readyz on cfg.Listen and follows the
// workloads of cfg.Scopes with the engine until ctx ends, its verdicts kept
// as metrics and, with cfg.Events, recorded as Events.
func Run(ctx context.Context, cfg Config) error {
	client, err := cfg.Request.NewClient()
	if err != nil {
		return engine.Translate(err)
	}
	s := &sink{metrics: NewMetrics(), client: client, events: cfg.Events, notes: cfg.Notes}
	l, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return &engine.ExitError{Code: engine.ExitUsage, Err: fmt.Errorf("cannot listen on %s: %w (choose another with --listen)", cfg.Listen, err)}
	}
	srv := &http.Server{Handler: s.metrics.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	fmt.Fprintf(cfg.Notes, "serving /metrics, /healthz and /readyz on %s; following %s\n", l.Addr(), engine.ScopeNames(cfg.Scopes))
	req := cfg.Request
	req.NewClient = func() (kube.Client, error) { return client, nil }
	return engine.New(req, cfg.Notes).Watch(ctx, cfg.Scopes, cfg.Resync, s)
}

// sink is serve's sink of the engine's verdicts: the metrics, and with
// events an Event on each workload whose verdict changed.
type sink struct {
	metrics *Metrics
	client  kube.Client
	events  bool
	notes   io.Writer
}

func (s *sink) Requests(n int)      { s.metrics.Requests(n) }
func (s *sink) Error(reason string) { s.metrics.Error(reason) }

// Judged updates the metrics, and records the Events of the verdicts that
// changed.
func (s *sink) Judged(ctx context.Context, reports []chain.Report, walked []*chain.Snapshot, now time.Time) {
	changes := s.metrics.Update(reports, now)
	if s.events {
		s.record(ctx, changes, walked, now)
	}
}
