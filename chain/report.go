package chain

import (
	"fmt"
	"time"
)

// SchemaVersion is the version of the JSON and YAML report. It changes only
// when a field is removed or changes meaning; added fields keep it.
const SchemaVersion = "kubectl-chain/v1"

// LinkID names a link of the chain. The IDs are part of the output schema.
type LinkID string

// A Deployment's links, in the order the chain runs them.
const (
	LinkStored         LinkID = "stored"
	LinkReplicaSet     LinkID = "replicaset"
	LinkPods           LinkID = "pods"
	LinkNodeAssignment LinkID = "node-assignment"
	LinkContainers     LinkID = "containers"
	LinkReady          LinkID = "ready"

	// Links of the other kinds' chains (ChainOf).
	LinkRevision   LinkID = "revision"
	LinkClaims     LinkID = "claims"
	LinkNodes      LinkID = "nodes"
	LinkCompletion LinkID = "completion"
	LinkSchedule   LinkID = "schedule"
	// LinkServing is past ready: the Services that select the pods, and
	// their EndpointSlices, so traffic reaches them.
	LinkServing LinkID = "serving"
)

// Links is a Deployment's chain in order: each link is some program's one
// step, and a link can only work once the ones before it have.
var Links = []LinkID{LinkStored, LinkReplicaSet, LinkPods, LinkNodeAssignment, LinkContainers, LinkReady, LinkServing}

// Title is the link's human name with the component that owns the step in
// a Deployment's chain.
func (l LinkID) Title() string { return l.TitleFor(KindDeployment) }

// TitleFor is the link's human name with the component that owns the step
// in the chain of kind k.
func (l LinkID) TitleFor(k Kind) string {
	if t, ok := trafficTitles[l]; ok {
		return t
	}
	if t, ok := resourceTitle(l, k); ok {
		return t
	}
	row, ok := RowOf(k)
	controller := row.Controller
	if !ok {
		controller = string(k)
	}
	switch l {
	case LinkStored:
		if controller == "" {
			return "stored (API server)"
		}
		return fmt.Sprintf("stored (API server, %s controller observed it)", controller)
	case LinkRevision:
		return fmt.Sprintf("revision (%s controller, controller revisions)", controller)
	case LinkClaims:
		return "claims (StatefulSet controller, volume provisioner)"
	case LinkNodes:
		return "nodes (DaemonSet controller: which nodes should run a pod)"
	case LinkSchedule:
		return "schedule (CronJob controller)"
	case LinkCompletion:
		return "completion (Job controller: succeeded, failed or past its deadline)"
	case LinkPods:
		if row.PodsBy == "" {
			return "pods (ReplicaSet controller, admission)"
		}
		return fmt.Sprintf("pods (%s, admission)", row.PodsBy)
	case LinkReplicaSet:
		if row.Controller == "" {
			return "replicaset (Deployment controller)"
		}
		return fmt.Sprintf("replicaset (%s controller)", row.Controller)
	case LinkRollout:
		return "rollout (Argo Rollouts controller: steps, pauses, analysis, aborts)"
	case LinkNodeAssignment:
		return "node-assignment (scheduler)"
	case LinkContainers:
		return "containers (kubelet, container runtime)"
	case LinkReady:
		return "ready (probes, rollout availability)"
	case LinkServing:
		return "serving (Services, EndpointSlice controller, load balancers)"
	}
	return string(l)
}

// Status is a link's state. The values are part of the output schema.
type Status string

// Link statuses.
const (
	StatusOK          Status = "ok"
	StatusBroken      Status = "broken"
	StatusProgressing Status = "progressing"
	StatusUnknown     Status = "unknown"
	StatusNotReached  Status = "not-reached"
)

// Health is the verdict over the whole chain.
type Health string

// Verdict healths. Each has its own exit code.
const (
	Healthy     Health = "healthy"
	Broken      Health = "broken"
	Progressing Health = "progressing"
	// Unknown means a link could not be judged (evidence forbidden) and
	// nothing before it was broken.
	Unknown Health = "unknown"
)

// CauseID is a stable CamelCase identifier of a cause. IDs are never reused
// or renamed: CI pipelines match on them.
type CauseID string

// Report is the result of walking one workload's chain.
type Report struct {
	Schema string `json:"schema"`
	// Context is the kubeconfig context the report was read from, when
	// several were judged at once (--context a,b, --all-contexts).
	Context string `json:"context,omitempty"`
	// Kind is the workload's kind; its chain is ChainOf(Kind).
	Kind Kind `json:"kind"`
	// API is where a resource kind's object is served (IsResource).
	API       *APIResource `json:"api,omitempty"`
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	Time      time.Time    `json:"time"`
	Verdict   Verdict      `json:"verdict"`
	Links     []Link       `json:"links"`
	// ReplicaSets lists the Deployment's ReplicaSets, new first.
	ReplicaSets []ReplicaSetSummary `json:"replicaSets,omitempty"`
	// Gaps name the evidence that could not be read (a forbidden events
	// list), so a consumer of the JSON knows what the verdict did not see.
	Gaps []Gap `json:"gaps,omitempty"`
	// Requests is how many API requests the snapshot cost (0 offline).
	Requests int `json:"requests"`
	// Via is the pod or ReplicaSet the user named, whose Deployment this
	// is ("pod/web-7d4b9c6f5-x2x7q"); absent when the Deployment was named.
	Via string `json:"via,omitempty"`
	// Change names what changed since the last revision that ran healthy
	// (a Deployment, StatefulSet or DaemonSet that is not healthy).
	Change *Change `json:"change,omitempty"`
	// Error says why a context of several could not be judged at all
	// (its cluster unreachable, forbidden, the target not there): the
	// report stands for that context, with its own exit code.
	Error *RunError `json:"error,omitempty"`
}

// RunError is why one context of several was not judged, with the exit
// code a run of that context alone would have ended with.
type RunError struct {
	Exit    int    `json:"exit"`
	Message string `json:"message"`
}

// Verdict names the first broken link (or the first still progressing) and
// its main cause.
type Verdict struct {
	Health Health `json:"health"`
	// Link is the first link that is not ok; empty when healthy.
	Link     LinkID  `json:"link,omitempty"`
	Cause    CauseID `json:"cause,omitempty"`
	Summary  string  `json:"summary"`
	NextStep string  `json:"nextStep,omitempty"`
	// Terminal says the cause will not heal by waiting.
	Terminal bool `json:"terminal,omitempty"`
}

// Link is one judged link of the chain.
type Link struct {
	ID     LinkID `json:"id"`
	Status Status `json:"status"`
	// Summary is one line of what the link saw ("3/3 pods scheduled").
	Summary string `json:"summary"`
	// Findings are the causes found on this link, most important first.
	Findings []Finding `json:"findings,omitempty"`
	// Notes are facts worth showing that blame nothing (old ReplicaSets
	// still serving, a pod being replaced).
	Notes []string `json:"notes,omitempty"`
}

// Finding is one cause seen on one or more objects.
type Finding struct {
	Cause CauseID `json:"cause"`
	// Summary is the cause made specific: "image \"web:v2\" not found".
	Summary string `json:"summary"`
	// NextStep is the concrete thing to do: a field to fix, a command to run.
	NextStep string `json:"nextStep"`
	// Terminal says waiting will not fix it.
	Terminal bool `json:"terminal"`
	// Progressing marks a finding that is not a failure yet (an image still
	// pulling); a link with only such findings is progressing, not broken.
	Progressing bool `json:"progressing,omitempty"`
	// Objects are the objects it was seen on ("pod/web-6d4-x2x").
	Objects []string `json:"objects,omitempty"`
	// MoreObjects is how many more it was seen on than Objects names: an
	// answer bounded for an assistant (MCP) names the first few.
	MoreObjects int `json:"moreObjects,omitempty"`
	// Of is the number of objects of that kind looked at, so "3/3 pods".
	Of int `json:"of,omitempty"`
	// Evidence is what the finding was decoded from, verbatim.
	Evidence []Evidence `json:"evidence"`
	// Details are decoded facts as ordered key/value pairs ("resource": "cpu").
	Details []Detail `json:"details,omitempty"`
	// Since is when the evidence first showed it (zero when unknown); with
	// Repeats (events counted, restarts) it decides when --wait gives up.
	Since   time.Time `json:"since,omitzero"`
	Repeats int32     `json:"repeats,omitempty"`
	// Last is when the evidence last showed it, where an event says so:
	// for a cause retried with a back-off, --wait gives up only on a
	// failure seen the grace after Since. Not in the report.
	Last time.Time `json:"-"`
}

// Detail is one decoded fact of a finding.
type Detail struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// EvidenceSource says which kind of evidence a finding used. Object status
// never expires; events do.
type EvidenceSource string

// Evidence sources, in the order they are trusted.
const (
	SourceCondition      EvidenceSource = "condition"
	SourceContainerState EvidenceSource = "container-state"
	SourceObjectStatus   EvidenceSource = "status"
	SourceEvent          EvidenceSource = "event"
	// SourceHealthCheck is a community health check's verdict on an
	// object (Argo CD's catalogue, or the user's own checks): the
	// script's message, its status as the reason.
	SourceHealthCheck EvidenceSource = "health-check"
)

// Evidence is one verbatim piece of what the cluster said.
type Evidence struct {
	Source EvidenceSource `json:"source"`
	// Object is the object it was read from ("pod/web-6d4-x2x").
	Object string `json:"object"`
	// Field names where in the object ("status.conditions[PodScheduled]",
	// "status.containerStatuses[web].state.waiting").
	Field   string `json:"field,omitempty"`
	Type    string `json:"type,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
	// Count and Last are set for events.
	Count int32     `json:"count,omitempty"`
	Last  time.Time `json:"last,omitzero"`
}

// ReplicaSetSummary is one ReplicaSet of the Deployment as the walk saw it.
type ReplicaSetSummary struct {
	Name     string `json:"name"`
	Revision string `json:"revision,omitempty"`
	// Current is true for the ReplicaSet matching the Deployment's template.
	Current bool `json:"current"`
	// Desired is spec.replicas; Replicas, Ready and Available come from status.
	Desired   int32 `json:"desired"`
	Replicas  int32 `json:"replicas"`
	Ready     int32 `json:"ready"`
	Available int32 `json:"available"`
}

// Link returns the judged link with the given ID.
func (r *Report) Link(id LinkID) *Link {
	for i := range r.Links {
		if r.Links[i].ID == id {
			return &r.Links[i]
		}
	}
	return nil
}
