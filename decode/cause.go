// Package decode turns what a component wrote into causes. A decoder is a
// small pure function from what the scheduler, the kubelet, a runtime, a
// controller or an admission plugin says (a condition, a container state's
// reason and message, an event) to a Decoded cause; decoders live one file
// per subject, each tested with the real message texts of the component
// that writes them.
//
// The package also holds the cause catalogue (every Cause kubectl chain
// can name, the walk's own included: they are data), the decoders' one
// registry, and explain, which decodes what a user pastes. It reads no
// snapshot and follows no link: package diagnose walks the chain and asks
// it what each message means, so the walk and explain name the same cause
// for the same words.
package decode

import (
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Cause is one entry of the catalogue printed by `kubectl chain causes`.
type Cause struct {
	ID   chain.CauseID `json:"id"`
	Link chain.LinkID  `json:"link"`
	// Summary is the generic one-line description.
	Summary string `json:"summary"`
	// NextStep is the generic next step, as printed: Step with each field
	// as its bare name.
	NextStep string `json:"nextStep"`
	// Step is the next step's template, whose {FIELD}s the walk fills
	// (Fill, Render); the catalogue declares it as NextStep.
	Step string `json:"-"`
	// Terminal says when waiting stops being worth it.
	Terminal TerminalRule `json:"terminal"`
	// Family is the decoder subject the cause belongs to (image, sandbox,
	// volume, ...): a specific cause replaces a generic one of its family.
	Family string `json:"family"`
	// Generic marks a family's catch-all, named when the evidence says
	// nothing more specific.
	Generic bool `json:"-"`
}

// TerminalMode says whether a cause heals by waiting.
type TerminalMode string

// Terminal modes, from "will heal" to "will never heal".
const (
	// Transient causes heal by themselves or are not failures (an image
	// still pulling, a pod waiting for a node being added).
	Transient TerminalMode = "transient"
	// AfterGrace causes are terminal once they persisted for the grace
	// window: real clusters show short blips of them (informer caches not
	// yet synced, a secret created a moment after the Deployment).
	AfterGrace TerminalMode = "after-grace"
	// AfterRepeats causes are terminal once they happened Repeats times (a
	// pull failed twice, a container restarted N times).
	AfterRepeats TerminalMode = "after-repeats"
	// Immediate causes are terminal as soon as they are seen.
	Immediate TerminalMode = "immediate"
)

// TerminalRule is how a cause is judged by --wait.
type TerminalRule struct {
	Mode    TerminalMode `json:"mode"`
	Repeats int32        `json:"repeats,omitempty"`
	// Window, for AfterGrace, is a longer wait than the grace: a node
	// that went NotReady gets the pods' default not-ready toleration
	// (300 s) to come back before the gate gives up on it.
	Window time.Duration `json:"window,omitempty"`
	// Retried, for AfterGrace, is a cause its component retries with a
	// back-off (the kubelet's volume operations: 0.5 s doubling, up to
	// 2m2s, k8s.io/kubernetes pkg/util/goroutinemap/exponentialbackoff):
	// terminal only once a failure is seen the grace after the first, so
	// a Secret created during the grace is mounted at the next retry
	// instead of failing the gate just before it.
	Retried bool `json:"retried,omitempty"`
}

// Decoded is one message turned into a cause, made specific to what the
// message said.
type Decoded struct {
	Cause chain.CauseID
	// Summary is specific ("image \"web:v9\" not found"); empty means the
	// catalogue's summary.
	Summary string
	// NextStep is specific; empty means the catalogue's next step.
	NextStep string
	// Details are the decoded facts, in a fixed order.
	Details []chain.Detail
	// Nodes is, for scheduler reasons, how many nodes gave this reason.
	Nodes int
	// Progressing marks a decoded state that is not a failure yet.
	Progressing bool
}
