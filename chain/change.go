package chain

// Change kinds: what a broken rollout changed since the last revision that
// ran healthy.
const (
	// ChangeTemplate: the pod template differs from an older revision's.
	ChangeTemplate = "template"
	// ChangeFirstRevision: the workload has one revision; nothing to compare.
	ChangeFirstRevision = "first-revision"
	// ChangeReplicasOnly: the revision that runs now already ran ready; the
	// pod template did not change, only the replicas (or nothing).
	ChangeReplicasOnly = "replicas-only"
	// ChangeNotRead: the older revision's template is not in the snapshot
	// (a capture whose ControllerRevisions were stored without data).
	ChangeNotRead = "template-not-read"
)

// Change names what changed between the last revision that ran healthy and
// the one rolling out now, from the ReplicaSets or ControllerRevisions the
// snapshot already holds (no request of its own). Set on reports that are
// not healthy.
type Change struct {
	Kind string `json:"kind"`
	// From and To are revision numbers ("6"), FromName and ToName the
	// ReplicaSet or ControllerRevision holding them.
	From     string `json:"from,omitempty"`
	FromName string `json:"fromName,omitempty"`
	To       string `json:"to,omitempty"`
	ToName   string `json:"toName,omitempty"`
	// HealthKnown says the From revision is known to have run ready (its
	// ReplicaSet has available replicas, or pods of that revision are
	// ready); a ReplicaSet scaled to 0 keeps no record of it.
	HealthKnown bool `json:"healthKnown"`
	// Fields are the pod template fields that differ, in a stable order.
	Fields []FieldChange `json:"fields,omitempty"`
	// Rollback is the command that returns to From; Note says what the
	// reader should know about it (or why there is nothing to compare).
	Rollback string `json:"rollback,omitempty"`
	Note     string `json:"note,omitempty"`
	// Applied says who applied the revision rolling out, and from where
	// (a template that changed).
	Applied *Applied `json:"applied,omitempty"`
}

// FieldChange is one pod template field: its path ("containers[web].image")
// and its value before and after, compact JSON; empty when absent.
type FieldChange struct {
	Field string `json:"field"`
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
}
