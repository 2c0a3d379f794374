package cli

import (
	"context"
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
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
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
			ns, err := engine.UseKubeconfig(o.ConfigFlags, o.ErrOut)
			if err != nil {
				return err
			}
			return o.serve(cmd.Context(), s, o.scopes(s, ns))
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

// scopes are the namespaces serve follows, "" for all; ns is -n's or the
// kubeconfig's.
func (o *Options) scopes(s *serveOptions, ns string) []string {
	switch {
	case o.AllNamespaces:
		return []string{""}
	case len(s.namespaces) > 0:
		return s.namespaces
	}
	return []string{ns}
}

// watchSink is serve's sink of the engine's verdicts: the metrics, and
// with --events an Event on each workload whose verdict changed.
type watchSink struct {
	o       *Options
	s       *serveOptions
	metrics *serve.Metrics
	client  kube.Client
}

func (o *Options) serve(ctx context.Context, s *serveOptions, scopes []string) error {
	client, err := o.NewClient()
	if err != nil {
		return engine.Translate(err)
	}
	w := &watchSink{o: o, s: s, client: client, metrics: serve.NewMetrics()}
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
	fmt.Fprintf(o.ErrOut, "serving /metrics, /healthz and /readyz on %s; following %s\n", l.Addr(), engine.ScopeNames(scopes))
	req := o.request()
	req.NewClient = func() (kube.Client, error) { return client, nil }
	return engine.New(*req, o.ErrOut).Watch(ctx, scopes, s.resync, w)
}

func (w *watchSink) Requests(n int)      { w.metrics.Requests(n) }
func (w *watchSink) Error(reason string) { w.metrics.Error(reason) }

// Judged updates the metrics, and records the Events of the verdicts that
// changed.
func (w *watchSink) Judged(ctx context.Context, reports []chain.Report, walked []*chain.Snapshot, now time.Time) {
	changes := w.metrics.Update(reports, now)
	if w.s.events {
		w.record(ctx, changes, walked, now)
	}
}

// record writes an Event on each workload whose verdict changed since the
// last judgement (not on one first seen: a restarted watcher would repeat
// every verdict).
func (w *watchSink) record(ctx context.Context, changes []serve.Change, snaps []*chain.Snapshot, now time.Time) {
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
