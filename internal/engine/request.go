package engine

import (
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/health"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Request is what a front asks of the engine, compiled once from its input
// (the command line's flags and arguments, an MCP tool call, serve's
// flags): what to judge, where to read it from, and how long to follow it.
type Request struct {
	// Targets are what was named, as ParseTargets reads them; none when
	// Selector, All, AllNamespaces, Files or Manifests choose.
	Targets []Target
	// Namespace is where the targets live: -n, else the kubeconfig
	// context's. Offline (Files) it is -n as given: "" matches any
	// namespace the files hold. NamespaceFromFlag says it came from -n.
	Namespace         string
	NamespaceFromFlag bool

	// Files are captured objects to walk instead of a cluster.
	Files []string
	// Manifests are a rendered release whose workloads are judged live.
	Manifests []string
	// Unjudged says whether a release's objects that cannot be judged fail
	// the gate (UnjudgedFail) or are only listed (UnjudgedNote).
	Unjudged string

	// Selector, All and AllNamespaces choose many workloads at once.
	Selector      string
	All           bool
	AllNamespaces bool

	// Wait follows the rollout until it is healthy, terminally broken or
	// Timeout passes; Timeout also bounds the first read.
	Wait    bool
	Timeout time.Duration
	// Grace is how long after-grace causes must persist to be terminal.
	Grace time.Duration
	// Health judges the kinds the chain does not walk itself: the user's
	// checks over Argo CD's catalogue (LoadHealth); nil is the catalogue.
	Health *health.Catalogue

	// Stdin is what a file named "-" reads.
	Stdin io.Reader
	// NewClient builds the clientset, and NewMapper resolves resource
	// types through discovery (connect.Client and connect.Mapper build
	// them from kubectl's flags); tests give fakes.
	NewClient func() (kube.Client, error)
	NewMapper func() (meta.RESTMapper, error)
	// Now is the clock used to stamp snapshots; nil means time.Now.
	Now func() time.Time
}

// Values of Request.Unjudged (--unjudged).
const (
	UnjudgedNote = "note"
	UnjudgedFail = "fail"
)

// DefaultTimeout bounds a wait (and a read) when the front does not choose.
const DefaultTimeout = 5 * time.Minute

// Validate checks what each field alone cannot: the request's parts agree.
func (r *Request) Validate() error {
	if len(r.Targets) > 0 && (r.All || r.Selector != "" || r.AllNamespaces) {
		return UsageErrorf("name Deployments (or pods, ReplicaSets) or choose them with -l, --all or -A, not both")
	}
	if r.Selector != "" {
		if _, err := labels.Parse(r.Selector); err != nil {
			return UsageErrorf("invalid -l selector %q: %v", r.Selector, err)
		}
	}
	if len(r.Manifests) > 0 && (len(r.Targets) > 0 || r.All || r.Selector != "" || r.AllNamespaces || len(r.Files) > 0) {
		return UsageErrorf("--manifests names the workloads to judge: use it without names, -l, --all, -A or -f")
	}
	if len(r.Files) > 0 && r.Wait {
		return UsageErrorf("--wait follows a live rollout; it cannot be used with -f")
	}
	if r.Unjudged != UnjudgedNote && r.Unjudged != UnjudgedFail {
		return UsageErrorf("unknown --unjudged %q: use note (list what cannot be judged) or fail (also fail the gate on it)", r.Unjudged)
	}
	if r.Timeout <= 0 {
		return UsageErrorf("--timeout must be positive, got %s", r.Timeout)
	}
	if r.Grace < 0 {
		return UsageErrorf("--grace must not be negative, got %s", r.Grace)
	}
	return nil
}

// walkOptions are the walk's options the request sets.
func (r *Request) walkOptions() diagnose.Options {
	return diagnose.Options{Grace: r.Grace, Health: r.Health}
}

func (r *Request) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
