package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
	"github.com/kubectl-chain/kubectl-chain/internal/serve"
)

// serveOptions are `kubectl chain serve`'s own flags.
type serveOptions struct {
	listen     string
	namespaces []string
	events     bool
	resync     time.Duration
}

// defaultListen is where serve's HTTP endpoints listen.
const defaultListen = ":8080"

func newServeCommand(o *Options) *cobra.Command {
	s := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [-n NAMESPACE | --namespaces A,B | -A] [--listen :8080] [--events]",
		Short: "Watch the workloads in the cluster and expose their verdicts as Prometheus metrics",
		Long: `kubectl chain serve follows the workloads of a namespace, of several, or of
all (-A) with the watches --wait -A uses (one read, then no re-list), judges
them again whenever their objects change (and every --resync while a
verdict may change with time alone), and serves:

  /metrics  kubectl_chain_workload_health (0 healthy, 1 broken, 2 progressing,
            3 unknown), kubectl_chain_workload_broken_info (link, cause),
            kubectl_chain_workload_verdict_changed_timestamp_seconds, the
            reader's requests and errors, Go and process metrics
  /healthz  the process answers
  /readyz   the workloads were read and judged once

With --events it also records a Kubernetes Event on a workload when its
verdict changes (this needs create on events; kubectl chain serve manifests
--events grants it). It only reads otherwise: get, list and watch.`,
		Example: `  kubectl chain serve -A
  kubectl chain serve --namespaces shop,payments --listen :9102
  kubectl chain serve manifests --image registry.example.com/kubectl-chain:v1 | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Output.complete(o.Out); err != nil {
				return err
			}
			if s.resync <= 0 {
				return usageErrorf("--resync must be positive, got %s", s.resync)
			}
			if o.AllNamespaces && len(s.namespaces) > 0 {
				return usageErrorf("choose -A or --namespaces, not both")
			}
			if err := o.useKubeconfig(); err != nil {
				return err
			}
			return o.serve(cmd.Context(), s)
		},
	}
	cmd.Flags().StringVar(&s.listen, "listen", defaultListen, "address of the HTTP endpoints (/metrics, /healthz, /readyz)")
	cmd.Flags().StringSliceVar(&s.namespaces, "namespaces", nil, "follow these namespaces (default: -n, or the kubeconfig's namespace)")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "follow every namespace")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "follow only the workloads matching this label selector")
	cmd.Flags().BoolVar(&s.events, "events", false, "record a Kubernetes Event on a workload when its verdict changes (needs create on events)")
	cmd.Flags().DurationVar(&s.resync, "resync", 30*time.Second, "judge again at least this often, changes or not (a cause turns terminal with time)")
	cmd.Flags().DurationVar(&o.Grace, "grace", o.Grace, "how long a cause that real clusters show as a short blip must last before it counts as terminal")
	cmd.AddCommand(newServeManifestsCommand(o))
	return cmd
}

// scopes are the namespaces serve follows, "" for all.
func (o *Options) scopes(s *serveOptions) []string {
	switch {
	case o.AllNamespaces:
		return []string{""}
	case len(s.namespaces) > 0:
		return s.namespaces
	}
	return []string{o.namespace}
}

// watcher is serve's state: one mirror a scope, the metrics, and the
// Events it records.
type watcher struct {
	o       *Options
	s       *serveOptions
	reader  *kube.Reader
	metrics *serve.Metrics
	client  kube.Client
	scopes  []string
	mirrors []*kube.Mirror
	changed chan struct{}
	// outages is how many API server outages the metrics counted.
	outages int
	// waiting says the last judgement found a verdict that time alone
	// may change (progressing, unknown, or broken but not yet terminal):
	// only then does the clock judge again when nothing changed.
	waiting bool
	// reports are the last verdicts, by workload: a judgement walks again
	// only the workloads of the namespaces whose objects changed, and the
	// ones time alone may change.
	reports map[serve.Key]chain.Report
}

func (o *Options) serve(ctx context.Context, s *serveOptions) error {
	client, err := o.NewClient()
	if err != nil {
		return translate(err)
	}
	w := &watcher{o: o, s: s, client: client, metrics: serve.NewMetrics(), scopes: o.scopes(s), changed: make(chan struct{}, 1),
		reader: &kube.Reader{Client: client, Now: o.Now, MirrorEverything: true}}
	l, err := net.Listen("tcp", s.listen)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("cannot listen on %s: %w (choose another with --listen)", s.listen, err)}
	}
	srv := &http.Server{Handler: w.metrics.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	fmt.Fprintf(o.ErrOut, "serving /metrics, /healthz and /readyz on %s; following %s\n", l.Addr(), scopeNames(w.scopes))
	for _, scope := range w.scopes {
		m, err := w.reader.Mirror(ctx, scope, o.Selector, true, w.changed)
		if err != nil {
			return translate(err)
		}
		w.mirrors = append(w.mirrors, m)
		w.metrics.Requests(m.Requests)
	}
	return w.run(ctx)
}

func scopeNames(scopes []string) string {
	if len(scopes) == 1 && scopes[0] == "" {
		return "all namespaces"
	}
	return "namespaces " + strings.Join(scopes, ", ")
}

// run judges on every change (coalesced over debounce) and every resync,
// until ctx ends.
func (w *watcher) run(ctx context.Context) error {
	const debounce = 200 * time.Millisecond
	tick := time.NewTicker(w.s.resync)
	defer tick.Stop()
	for {
		if err := w.judge(ctx); err != nil {
			return err
		}
		for again := false; !again; {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
				// Nothing changed: only a verdict time alone may change
				// calls for a judgement.
				again = w.waiting
			case <-w.changed:
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(debounce):
				}
				again = true
			}
		}
	}
}

// judge walks the workloads the mirrors hold and updates the metrics: all
// of them the first time and when a whole store was read anew or a
// cluster-scoped object changed; else those of the namespaces whose
// objects changed, and those whose verdict time alone may change. A mirror
// a watch was refused on is read anew.
func (w *watcher) judge(ctx context.Context) error {
	now := w.o.now()
	first := w.reports == nil
	if first {
		w.reports = map[serve.Key]chain.Report{}
	}
	var snaps []*chain.Snapshot
	for i, m := range w.mirrors {
		w.drainForbidden(m)
		if m.Stale() {
			fresh, err := w.reader.Mirror(ctx, w.scopes[i], w.o.Selector, true, w.changed)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				fmt.Fprintf(w.o.ErrOut, "reading %s again: %v\n", scopeNames(w.scopes[i:i+1]), err)
				continue
			}
			w.mirrors[i], m = fresh, fresh
			w.metrics.Requests(fresh.Requests)
		}
		everything, namespaces := m.TakeChanged()
		all := first || everything
		again := func(wl capture.Workload) bool {
			if all || namespaces[wl.Namespace] {
				return true
			}
			r, ok := w.reports[serve.Key{Namespace: wl.Namespace, Kind: string(wl.Kind), Name: wl.Name}]
			return !ok || timeMayChange(r.Verdict)
		}
		// What is walked again replaces what was: a workload of those
		// namespaces that is gone loses its series.
		for k := range w.reports {
			if inScope(w.scopes[i], k.Namespace) && (all || namespaces[k.Namespace]) {
				delete(w.reports, k)
			}
		}
		t, err := w.o.targetsWhere(m.Bundle(), m.Gaps, m.Requests, again)
		var exit *ExitError
		if errors.As(err, &exit) && exit.Code == ExitNotFound {
			continue // nothing to judge in this scope (yet)
		}
		if err != nil {
			return err
		}
		for _, r := range t.walk(now, w.o.walkOptions()).Items {
			w.reports[serve.Key{Namespace: r.Namespace, Kind: string(r.Kind), Name: r.Name}] = r
		}
		snaps = append(snaps, t.snaps...)
	}
	if n, _ := w.reader.Conn().Ended(); n > w.outages {
		for ; w.outages < n; w.outages++ {
			w.metrics.Error("unreachable")
		}
	}
	w.waiting = false
	reports := make([]chain.Report, 0, len(w.reports))
	for _, r := range w.reports {
		w.waiting = w.waiting || timeMayChange(r.Verdict)
		reports = append(reports, r)
	}
	changes := w.metrics.Update(reports, now)
	if w.s.events {
		w.record(ctx, changes, snaps, now)
	}
	return nil
}

// timeMayChange says time alone may change the verdict: progressing,
// unknown, or broken but not yet terminal (a grace runs out without any
// object changing).
func timeMayChange(v chain.Verdict) bool {
	return v.Health == chain.Progressing || v.Health == chain.Unknown || v.Health == chain.Broken && !v.Terminal
}

// inScope says namespace ns is in scope ("" for all namespaces).
func inScope(scope, ns string) bool { return scope == "" || scope == ns }

// drainForbidden counts and says the watches RBAC refused.
func (w *watcher) drainForbidden(m *kube.Mirror) {
	for {
		select {
		case what := <-m.Forbidden:
			w.metrics.Error("forbidden")
			fmt.Fprintf(w.o.ErrOut, "a watch was refused: %s\n", what)
		default:
			return
		}
	}
}

// record writes an Event on each workload whose verdict changed since the
// last judgement (not on one first seen: a restarted watcher would repeat
// every verdict).
func (w *watcher) record(ctx context.Context, changes []serve.Change, snaps []*chain.Snapshot, now time.Time) {
	uids := map[serve.Key]types.UID{}
	for _, s := range snaps {
		if obj := workloadObject(s); obj != nil {
			uids[serve.Key{Namespace: s.Namespace, Kind: string(s.KindOf()), Name: s.Name}] = obj.GetUID()
		}
	}
	host, _ := os.Hostname()
	for _, c := range changes {
		if c.From.Health == "" {
			continue
		}
		ev := verdictEvent(c, uids[c.Key], now, host)
		if _, err := w.client.CoreV1().Events(c.Key.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(w.o.ErrOut, "recording the event on %s/%s: %v\n", strings.ToLower(c.Key.Kind), c.Key.Name, err)
		}
	}
}

// workloadObject is the snapshot's own workload object.
func workloadObject(s *chain.Snapshot) metav1.Object {
	switch {
	case s.Deployment != nil:
		return s.Deployment
	case s.StatefulSet != nil:
		return s.StatefulSet
	case s.DaemonSet != nil:
		return s.DaemonSet
	case s.CronJob != nil:
		return s.CronJob
	case s.Job != nil:
		return s.Job
	}
	return nil
}

// apiVersions of the kinds an Event names.
var apiVersions = map[string]string{string(chain.KindDeployment): "apps/v1", string(chain.KindStatefulSet): "apps/v1",
	string(chain.KindDaemonSet): "apps/v1", string(chain.KindJob): "batch/v1", string(chain.KindCronJob): "batch/v1"}

// verdictEvent is the Event of a verdict change: Warning when it broke,
// Normal otherwise; the cause and the next step in its message.
func verdictEvent(c serve.Change, uid types.UID, now time.Time, host string) *corev1.Event {
	v := c.Report.Verdict
	reason, typ := "Chain"+strings.ToUpper(string(v.Health[:1]))+string(v.Health[1:]), corev1.EventTypeNormal
	msg := fmt.Sprintf("kubectl chain: %s", v.Health)
	if v.Health == chain.Broken {
		typ = corev1.EventTypeWarning
	}
	if v.Link != "" {
		msg += fmt.Sprintf(" at %s", v.Link)
	}
	if v.Cause != "" {
		msg += fmt.Sprintf(": %s", v.Cause)
	}
	if v.Summary != "" {
		msg += " (" + v.Summary + ")"
	}
	if v.NextStep != "" {
		msg += "; next: " + v.NextStep
	}
	if c.From.Health != "" {
		msg += fmt.Sprintf("; was %s", c.From.Health)
	}
	if len(msg) > 1024 {
		msg = msg[:1021] + "..."
	}
	t := metav1.NewTime(now)
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: c.Key.Name + ".", Namespace: c.Key.Namespace},
		InvolvedObject:      corev1.ObjectReference{APIVersion: apiVersions[c.Key.Kind], Kind: c.Key.Kind, Namespace: c.Key.Namespace, Name: c.Key.Name, UID: uid},
		Reason:              reason,
		Message:             msg,
		Type:                typ,
		Source:              corev1.EventSource{Component: "kubectl-chain"},
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
		ReportingController: "kubectl-chain",
		ReportingInstance:   host,
	}
}
