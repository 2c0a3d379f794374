package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes of a resource kind's chain (any kind the cluster serves, walked
// as KIND/NAME): the object, its own status as kstatus reads it, and the
// workloads it owns, which are quoted with their own causes.
const (
	ResourceNotFound    chain.CauseID = "ResourceNotFound"
	ResourceFailed      chain.CauseID = "ResourceFailed"
	ResourceInProgress  chain.CauseID = "ResourceInProgress"
	ResourceTerminating chain.CauseID = "ResourceTerminating"
	OwnedNotHealthy     chain.CauseID = "OwnedNotHealthy"
	// The statuses of the health check the community keeps for the kind
	// (Argo CD's catalogue, or the user's own --health-checks).
	HealthDegraded    chain.CauseID = "HealthDegraded"
	HealthProgressing chain.CauseID = "HealthProgressing"
	HealthSuspended   chain.CauseID = "HealthSuspended"
	// ResourceNotReconciled: a kind its community checks by its status,
	// with no status written.
	ResourceNotReconciled chain.CauseID = "ResourceNotReconciled"
)

var resourceCauses = []Cause{
	{ID: ResourceNotFound, Link: chain.LinkStored,
		Summary:  "the object does not exist in this namespace",
		NextStep: "check the name and namespace: kubectl get {TYPE} -n {NAMESPACE} (or pass -n)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ResourceFailed, Link: chain.LinkStatus,
		Summary:  "kstatus reads the object as Failed: its controller says it cannot reach the state its spec asks for (a Stalled condition, or its kind's own failed state)",
		NextStep: "read its conditions and events: kubectl describe {TYPE} {NAME} -n {NAMESPACE}; then its controller's logs",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ResourceInProgress, Link: chain.LinkStatus,
		Summary:  "kstatus reads the object as InProgress: its controller has not reached the state its spec asks for yet (Ready not True, Reconciling, or a generation not yet observed)",
		NextStep: "wait, or read what it waits for: kubectl describe {TYPE} {NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: ResourceTerminating, Link: chain.LinkStatus,
		Summary:  "the object is being deleted: its finalizers have not all been removed yet",
		NextStep: "kubectl get {TYPE} {NAME} -n {NAMESPACE} -o jsonpath='{.metadata.finalizers}', and the controllers that own them",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: HealthDegraded, Link: chain.LinkStatus,
		Summary:  "the health check its kind's community keeps (Argo CD's catalogue, or your own) reads the object as Degraded: its status reports a failure",
		NextStep: "read what the check quotes, then its conditions and events: kubectl describe {TYPE} {NAME} -n {NAMESPACE}; then its controller's logs",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: HealthProgressing, Link: chain.LinkStatus,
		Summary:  "the health check its kind's community keeps reads the object as Progressing: its controller has not reached the state its spec asks for yet",
		NextStep: "wait, or read what it waits for: kubectl describe {TYPE} {NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: HealthSuspended, Link: chain.LinkStatus,
		Summary:  "the health check its kind's community keeps reads the object as Suspended: it is paused, and nothing moves until a person or an outside event resumes it",
		NextStep: "resume it as its kind says (a suspend or paused field in its spec): kubectl get {TYPE} {NAME} -n {NAMESPACE} -o yaml",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ResourceNotReconciled, Link: chain.LinkStatus,
		Summary:  "the object has no status at all: no controller has acted on it (its kind's operator is not installed, not running, or not watching this namespace), so it will not become ready",
		NextStep: "check that its kind's controller runs and watches {NAMESPACE}: kubectl get pods -A | grep -i the operator's name, then its logs; kubectl describe {TYPE} {NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: OwnedNotHealthy, Link: chain.LinkOwned,
		Summary:  "a workload the object owns is not healthy yet and its own chain names no cause",
		NextStep: "kubectl chain the owned workload it names",
		Terminal: TerminalRule{Mode: Transient}},
}
