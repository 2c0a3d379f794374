// Package cli holds kubectl chain's cobra commands. Each command has an
// Options with Complete (flags and environment to a config), Validate and
// Run, as kubectl's own commands do.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Options is the root command's configuration: `kubectl chain deploy/NAME`.
type Options struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	Output outputFlags

	// Grace is how long after-grace causes must persist to be terminal.
	Grace time.Duration
	// HealthChecks is the user's own health checks (their argocd-cm
	// ConfigMap, or a folder of GROUP/KIND/health.lua), over Argo CD's
	// catalogue; health is what Complete loaded from it.
	HealthChecks string
	health       *health.Catalogue
	// Wait follows the rollout until it is healthy, terminally broken or
	// Timeout passes.
	Wait    bool
	Timeout time.Duration

	// Files are captured objects to walk instead of a cluster.
	Files []string
	// Manifests are a rendered release whose workloads are judged live.
	Manifests []string
	// Unjudged says whether a release's objects that cannot be judged fail
	// the gate (unjudgedFail) or are only listed (unjudgedNote).
	Unjudged string

	// Selector, All and AllNamespaces choose many Deployments at once.
	Selector      string
	All           bool
	AllNamespaces bool

	// NewClient builds the clientset; tests replace it.
	NewClient func() (kube.Client, error)
	// NewMapper resolves resource types through discovery, with kubectl's
	// on-disk cache; tests replace it.
	NewMapper func() (meta.RESTMapper, error)
	// Now is the clock used to stamp snapshots; nil means time.Now.
	Now func() time.Time

	namespace string
	// targets are what the arguments name; names the Deployments they
	// resolve to, in order, each once; via what was named for a
	// Deployment reached through its pod or ReplicaSet.
	targets []target
	refs    []chain.Ref
	via     map[chain.Ref]string
	release *release
	// mirror holds a followed selector's, --all's or -A's scope current;
	// changed signals its changes.
	mirror  *kube.Mirror
	changed chan struct{}
	// conn is the followed reader's view of the API server, for a wait.
	conn *kube.Conn
	// producers are the producer kinds the cluster serves, resolved once
	// when a Secret is first found missing.
	producers []chain.APIResource
}

// NewOptions returns Options reading the real cluster named by the kubeconfig.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	o := &Options{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		IOStreams:   streams,
		Grace:       diagnose.DefaultGrace,
	}
	o.NewClient = func() (kube.Client, error) {
		cfg, err := o.ConfigFlags.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		cfg.UserAgent = "kubectl-chain/" + Version()
		// kubectl's own discovery limits: a read of a busy scope sends
		// its field-selected event reads (up to 100) in parallel.
		if cfg.QPS == 0 {
			cfg.QPS, cfg.Burst = 50, 300
		}
		return kube.NewClient(cfg)
	}
	o.NewMapper = func() (meta.RESTMapper, error) { return o.ConfigFlags.ToRESTMapper() }
	return o
}

// NewRootCommand builds `kubectl chain` with its subcommands.
func NewRootCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubectl-chain [TYPE/]NAME",
		Short: "Walk a workload's causal chain and name the first broken link",
		Long: `kubectl chain checks each link a Deployment needs, in order: the API server
stored it, the Deployment controller made a ReplicaSet, the ReplicaSet
controller made pods, the scheduler gave them nodes, the kubelet started their
containers, and they became ready. StatefulSets, DaemonSets, Jobs and
CronJobs have chains of their own (sts/NAME, ds/NAME, job/NAME, cj/NAME), and
a pod (pod/NAME) names its workload. It names the first broken link, its
cause, the verbatim evidence and the next step. It only reads (get and list).`,
		Example: `  kubectl chain deploy/web
  kubectl chain web -n shop -o json
  kubectl chain sts/db --wait
  kubectl chain job/migrate --wait --timeout 10m
  helm get manifest shop | kubectl chain --manifests - -n shop
  kubectl chain causes`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl chain",
		},
		Args:              cobra.ArbitraryArgs,
		SilenceUsage:      true,
		SilenceErrors:     true,
		ValidArgsFunction: o.completeDeployments,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.SetIn(o.In)
	cmd.SetOut(o.Out)
	cmd.SetErr(o.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (see kubectl chain --help)", err)}
	})
	o.ConfigFlags.AddFlags(cmd.PersistentFlags())
	o.Output.addFlags(cmd.PersistentFlags())
	cmd.PersistentFlags().StringVar(&o.HealthChecks, "health-checks", "", "your own health checks for other kinds, as Argo CD keeps them: the argocd-cm ConfigMap as YAML (resource.customizations.health.GROUP_KIND keys), or a folder of GROUP/KIND/health.lua; they override Argo CD's catalogue")
	cmd.Flags().DurationVar(&o.Grace, "grace", o.Grace, "how long a cause that real clusters show as a short blip (a missing Secret, an unschedulable pod) must last before it counts as terminal")
	cmd.Flags().BoolVar(&o.Wait, "wait", false, "follow the rollout until it is complete, a cause is terminal, or --timeout passes")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 5*time.Minute, "with --wait, how long to wait before giving up with the last verdict")
	cmd.Flags().StringArrayVarP(&o.Files, "filename", "f", nil, "walk captured objects instead of a cluster: a kubectl chain capture, or kubectl get deploy,rs,pods,events -o yaml output (repeatable; - reads stdin; a folder, its .yaml, .yml and .json files)")
	cmd.Flags().StringVar(&o.Unjudged, "unjudged", unjudgedNote, "with --manifests, what an object that cannot be judged does (a Secret, never read; a kind the cluster does not serve): note lists it on standard error, fail also fails the gate (exit 3 when nothing is broken)")
	cmd.Flags().StringArrayVar(&o.Manifests, "manifests", nil, "judge live every workload of a rendered release: helm template, helm get manifest or kustomize build output, or plain YAML (repeatable; - reads stdin; a folder, its .yaml, .yml and .json files, as kubectl apply -f DIR)")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "judge the workloads matching this label selector (e.g. app=web)")
	cmd.Flags().BoolVar(&o.All, "all", false, "judge every workload in the namespace")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "judge every workload in every namespace (with -l, those matching)")
	cmd.AddCommand(newVersionCommand(o.IOStreams), newCausesCommand(o), newExplainCommand(o), newCaptureCommand(o), newRBACCommand(o), newMCPCommand(o), newServeCommand(o), newLabCommand(o.IOStreams))
	return cmd
}

// Complete reads the arguments and the kubeconfig's namespace.
func (o *Options) Complete(args []string) error {
	if o.HealthChecks != "" {
		user, err := health.Load(o.HealthChecks)
		if err != nil {
			return usageErrorf("--health-checks: %v", err)
		}
		o.health = user.Over(health.Builtin())
	}
	if len(args) > 0 || !(o.All || o.Selector != "" || o.AllNamespaces || len(o.Files) > 0 || len(o.Manifests) > 0) {
		targets, err := parseTargets(args)
		if err != nil {
			return err
		}
		o.targets = targets
		for _, t := range targets {
			if k := workloadKinds[t.kind]; k != "" {
				o.refs = append(o.refs, chain.Ref{Kind: k, Name: t.name})
			}
		}
	}
	// Mistakes on the command line are usage errors whatever the kubeconfig.
	if err := o.Output.complete(o.Out); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if len(o.Files) > 0 {
		return nil // offline: no kubeconfig is read
	}
	return o.useKubeconfig()
}

// Validate checks what flags alone cannot.
func (o *Options) Validate() error {
	if len(o.targets) > 0 && (o.All || o.Selector != "" || o.AllNamespaces) {
		return usageErrorf("name Deployments (or pods, ReplicaSets) or choose them with -l, --all or -A, not both")
	}
	if o.Selector != "" {
		if _, err := labels.Parse(o.Selector); err != nil {
			return usageErrorf("invalid -l selector %q: %v", o.Selector, err)
		}
	}
	if len(o.Manifests) > 0 && (len(o.targets) > 0 || o.All || o.Selector != "" || o.AllNamespaces || len(o.Files) > 0) {
		return usageErrorf("--manifests names the workloads to judge: use it without names, -l, --all, -A or -f")
	}
	if len(o.Files) > 0 && o.Wait {
		return usageErrorf("--wait follows a live rollout; it cannot be used with -f")
	}
	if o.Unjudged != unjudgedNote && o.Unjudged != unjudgedFail {
		return usageErrorf("unknown --unjudged %q: use note (list what cannot be judged) or fail (also fail the gate on it)", o.Unjudged)
	}
	if o.Timeout <= 0 {
		return usageErrorf("--timeout must be positive, got %s", o.Timeout)
	}
	if o.Grace < 0 {
		return usageErrorf("--grace must not be negative, got %s", o.Grace)
	}
	return nil
}

// walkOptions are the walk's options the flags set.
func (o *Options) walkOptions() diagnose.Options {
	return diagnose.Options{Grace: o.Grace, Health: o.health}
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Execute runs kubectl chain with the process's arguments and streams and
// returns the error whose exit code main uses.
func Execute(ctx context.Context, args []string) error {
	return ExecuteWith(ctx, NewOptions(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}), args)
}

// ExecuteWith runs the root command with the given options, printing any
// error that the report has not already explained on the error stream.
func ExecuteWith(ctx context.Context, o *Options, args []string) error {
	// client-go reports what it retries through klog ("Couldn't get
	// current server API group list" before a failed discovery); the
	// command says what failed itself, once, with what to do.
	klog.SetLogger(logr.Discard())
	cmd := NewRootCommand(o)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	var v *VerdictError
	var e *ExitError
	switch {
	case err == nil, errors.As(err, &v):
	case errors.As(err, &e) && e.silent:
	default:
		fmt.Fprintf(o.ErrOut, "error: %s\n", err)
	}
	return err
}
