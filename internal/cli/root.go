// Package cli holds kubectl chain's cobra commands. Each command has an
// Options of its flags with Complete (flags and environment compiled into
// the engine's Request) and Run (the request on the engine, its verdicts to
// the printer), as kubectl's own commands do.
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
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/connect"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Options is the root command's flags: `kubectl chain deploy/NAME`.
// Complete compiles them, with the arguments, into the engine's Request;
// the engine keeps whatever a run learns.
type Options struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	Output outputFlags

	// Grace is how long after-grace causes must persist to be terminal.
	Grace time.Duration
	// HealthChecks is the user's own health checks (their argocd-cm
	// ConfigMap, or a folder of GROUP/KIND/health.lua), over Argo CD's
	// catalogue.
	HealthChecks string
	// Wait follows the rollout until it is healthy, terminally broken or
	// Timeout passes.
	Wait    bool
	Timeout time.Duration

	// Files are captured objects to walk instead of a cluster.
	Files []string
	// Manifests are a rendered release whose workloads are judged live.
	Manifests []string
	// Unjudged says whether a release's objects that cannot be judged fail
	// the gate (engine.UnjudgedFail) or are only listed
	// (engine.UnjudgedNote).
	Unjudged string

	// Selector, All and AllNamespaces choose many Deployments at once.
	Selector      string
	All           bool
	AllNamespaces bool
	// AllContexts judges in every kubeconfig context at once; --context
	// judges in each context it names ("a,b").
	AllContexts bool

	// NewClient builds the clientset from ConfigFlags; tests replace it.
	NewClient func() (kube.Client, error)
	// NewMapper resolves resource types through discovery, with kubectl's
	// on-disk cache; tests replace it.
	NewMapper func() (meta.RESTMapper, error)
	// Now is the clock used to stamp snapshots; nil means time.Now.
	Now func() time.Time
}

// NewOptions returns Options reading the real cluster named by the kubeconfig.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	o := &Options{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		IOStreams:   streams,
		Grace:       diagnose.DefaultGrace,
	}
	o.NewClient = connect.Client(o.ConfigFlags, userAgent())
	o.NewMapper = connect.Mapper(o.ConfigFlags)
	return o
}

// userAgent is how kubectl chain names itself to the API server.
func userAgent() string { return "kubectl-chain/" + Version() }

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
			contexts, err := o.contexts()
			if err != nil {
				return err
			}
			if contexts != nil {
				return o.RunFleet(cmd.Context(), args, contexts)
			}
			req, err := o.Complete(args)
			if err != nil {
				return err
			}
			return o.Run(cmd.Context(), req)
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
	cmd.Flags().DurationVar(&o.Timeout, "timeout", engine.DefaultTimeout, "with --wait, how long to wait before giving up with the last verdict")
	cmd.Flags().StringArrayVarP(&o.Files, "filename", "f", nil, "walk captured objects instead of a cluster: a kubectl chain capture, or kubectl get deploy,rs,pods,events -o yaml output (repeatable; - reads stdin; a folder, its .yaml, .yml and .json files)")
	cmd.Flags().StringVar(&o.Unjudged, "unjudged", engine.UnjudgedNote, "with --manifests, what an object that cannot be judged does (a Secret, never read; a kind the cluster does not serve): note lists it on standard error, fail also fails the gate (exit 3 when nothing is broken)")
	cmd.Flags().StringArrayVar(&o.Manifests, "manifests", nil, "judge live every workload of a rendered release: helm template, helm get manifest or kustomize build output, or plain YAML (repeatable; - reads stdin; a folder, its .yaml, .yml and .json files, as kubectl apply -f DIR)")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "judge the workloads matching this label selector (e.g. app=web)")
	cmd.Flags().BoolVar(&o.All, "all", false, "judge every workload in the namespace")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "judge every workload in every namespace (with -l, those matching)")
	cmd.Flags().BoolVar(&o.AllContexts, "all-contexts", false, "judge in every context of the kubeconfig at once, in one report with a CONTEXT column (--context a,b judges in those named)")
	cmd.AddCommand(newVersionCommand(o.IOStreams), newCausesCommand(o), newExplainCommand(o), newCaptureCommand(o), newRBACCommand(o), newMCPCommand(o), newServeCommand(o), newLabCommand(o.IOStreams))
	return cmd
}

// Complete compiles the flags and the arguments into the engine's request:
// the targets named, the health checks loaded, and the namespace from -n or
// the kubeconfig (read only for a live run).
func (o *Options) Complete(args []string) (*engine.Request, error) {
	return o.complete(args, o.ConfigFlags)
}

// complete is Complete with kubectl's flags of one context (a fleet's
// member's, ForContext).
func (o *Options) complete(args []string, flags *genericclioptions.ConfigFlags) (*engine.Request, error) {
	req, err := o.request()
	if err != nil {
		return nil, err
	}
	if len(args) > 0 || !(o.All || o.Selector != "" || o.AllNamespaces || len(o.Files) > 0 || len(o.Manifests) > 0) {
		targets, err := engine.ParseTargets(args)
		if err != nil {
			return nil, err
		}
		req.Targets = targets
	}
	// Mistakes on the command line are usage errors whatever the kubeconfig.
	if err := o.Output.complete(o.Out); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if len(o.Files) > 0 {
		// Offline: no kubeconfig is read, and -n is as given.
		req.Namespace = namespaceFlag(flags)
		return req, nil
	}
	ns, err := connect.Kubeconfig(flags, o.ErrOut)
	if err != nil {
		return nil, err
	}
	req.Namespace, req.NamespaceFromFlag = ns, namespaceFlag(flags) != ""
	return req, nil
}

// contexts are the contexts a fleet run judges (--context a,b,
// --all-contexts); nil for one.
func (o *Options) contexts() ([]string, error) {
	contexts, err := connect.Contexts(o.ConfigFlags, o.AllContexts, o.ErrOut)
	if err != nil || contexts == nil {
		return nil, err
	}
	if len(o.Files) > 0 {
		return nil, usageErrorf("-f walks files, which belong to no context: leave out --context or --all-contexts")
	}
	return contexts, nil
}

// RunFleet judges the arguments in each context at once and prints one
// report of them all (engine.RunFleet). A context whose kubeconfig entry
// cannot be used is a row of its own.
func (o *Options) RunFleet(ctx context.Context, args []string, contexts []string) error {
	members := make([]engine.Member, len(contexts))
	for i, c := range contexts {
		flags := connect.ForContext(o.ConfigFlags, c)
		members[i].Context = c
		req, err := o.complete(args, flags)
		var usage *ExitError
		if errors.As(err, &usage) && usage.Code == ExitUsage {
			return err // the command line is wrong for every context
		}
		if err != nil {
			members[i].Err = err
			continue
		}
		req.NewClient, req.NewMapper = connect.Client(flags, userAgent()), connect.Mapper(flags)
		members[i].Request = *req
	}
	return engine.RunFleet(ctx, members, o.ErrOut, o.printer())
}

// request is the engine's request of the flags alone.
func (o *Options) request() (*engine.Request, error) {
	req := &engine.Request{
		Files: o.Files, Manifests: o.Manifests, Unjudged: o.Unjudged,
		Selector: o.Selector, All: o.All, AllNamespaces: o.AllNamespaces,
		Wait: o.Wait, Timeout: o.Timeout, Grace: o.Grace,
		Stdin: o.In, NewClient: o.NewClient, NewMapper: o.NewMapper, Now: o.Now,
	}
	if o.HealthChecks != "" {
		// Every front that judges takes the user's checks: run, serve,
		// capture and rbac alike.
		h, err := engine.LoadHealth(o.HealthChecks)
		if err != nil {
			return nil, err
		}
		req.Health = h
	}
	return req, nil
}

// namespaceFlag is -n as given, "" when not given.
func namespaceFlag(f *genericclioptions.ConfigFlags) string {
	if f.Namespace == nil {
		return ""
	}
	return *f.Namespace
}

// Run runs the request on the engine and prints what it judged. A verdict
// other than healthy is returned as a *VerdictError so main picks its exit
// code.
func (o *Options) Run(ctx context.Context, req *engine.Request) error {
	return engine.New(*req, o.ErrOut).Run(ctx, o.printer())
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
	case errors.As(err, &e) && e.Silent:
	default:
		fmt.Fprintf(o.ErrOut, "error: %s\n", err)
	}
	return err
}
