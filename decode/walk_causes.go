package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes the walk itself finds from object structure rather than from a
// component's message (package diagnose finds them; they are declared here
// with the rest of the catalogue).
const (
	DeploymentNotFound    chain.CauseID = "DeploymentNotFound"
	DeploymentDeleting    chain.CauseID = "DeploymentDeleting"
	DeploymentPaused      chain.CauseID = "DeploymentPaused"
	ScaledToZero          chain.CauseID = "ScaledToZero"
	GenerationNotObserved chain.CauseID = "GenerationNotObserved"
	ReplicaSetNotCreated  chain.CauseID = "ReplicaSetNotCreated"
	PodsNotCreated        chain.CauseID = "PodsNotCreated"
	SchedulingPending     chain.CauseID = "SchedulingPending"
	ScaleUpTriggered      chain.CauseID = "ScaleUpTriggered"
	ContainersCreating    chain.CauseID = "ContainersCreating"
	PodNotReady           chain.CauseID = "PodNotReady"
	MinReadySeconds       chain.CauseID = "MinReadySeconds"
	RolloutInProgress     chain.CauseID = "RolloutInProgress"
	EvidenceForbidden     chain.CauseID = "EvidenceForbidden"
	EvidenceUnavailable   chain.CauseID = "EvidenceUnavailable"
)

var walkCauses = []Cause{
	{ID: DeploymentNotFound, Link: chain.LinkStored,
		Summary:  "the Deployment does not exist in this namespace",
		NextStep: "check the name and namespace: kubectl get deployments -n {NAMESPACE} (or pass -n)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: DeploymentDeleting, Link: chain.LinkStored,
		Summary:  "the Deployment is being deleted (deletionTimestamp is set)",
		NextStep: "wait for the deletion to finish, or look at metadata.finalizers if it hangs",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: DeploymentPaused, Link: chain.LinkStored,
		Summary:  "the Deployment is paused: the controller will not roll out template changes",
		NextStep: "kubectl rollout resume deployment/{NAME}",
		Terminal: TerminalRule{Mode: Immediate}},
	// ScaledToZero is never a broken finding: kubectl rollout status
	// counts 0 replicas as complete, and autoscalers (HPA, KEDA) scale to
	// zero on purpose. The walk names it in a note on the stored link.
	{ID: ScaledToZero, Link: chain.LinkStored,
		Summary:  "spec.replicas is 0: nothing is asked to run (a note on a healthy chain, not a failure)",
		NextStep: "kubectl scale deployment/{NAME} --replicas=N (or check the HorizontalPodAutoscaler or KEDA ScaledObject that scaled it)",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: GenerationNotObserved, Link: chain.LinkStored,
		Summary:  "the Deployment controller has not observed the latest spec (status.observedGeneration < metadata.generation)",
		NextStep: "if it lasts, the kube-controller-manager is not running or not leading: check its pods or logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ReplicaSetNotCreated, Link: chain.LinkReplicaSet,
		Summary:  "no ReplicaSet matches the Deployment's current pod template",
		NextStep: "if it lasts, check the Deployment's ReplicaFailure condition and the kube-controller-manager",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: PodsNotCreated, Link: chain.LinkPods,
		Summary:  "the ReplicaSet has fewer pods than it wants and says nothing about why",
		NextStep: "if it lasts, check the kube-controller-manager: kubectl get events -n {NAMESPACE} --field-selector involvedObject.kind=ReplicaSet",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: SchedulingPending, Link: chain.LinkNodeAssignment,
		Summary:  "pods wait for the scheduler, which has not said anything about them yet",
		NextStep: "if it lasts, the scheduler is not running or the pod names another spec.schedulerName",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ScaleUpTriggered, Link: chain.LinkNodeAssignment,
		Summary:  "no node fits, and the cluster autoscaler is adding one",
		NextStep: "wait for the new node; kubectl get nodes -w",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: ContainersCreating, Link: chain.LinkContainers,
		Summary:  "the kubelet is preparing the pod (sandbox, volumes, images)",
		NextStep: "wait; if it lasts, kubectl describe pod {POD} and look at its events",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: PodNotReady, Link: chain.LinkReady,
		Summary:  "containers run but the pod is not Ready, and no probe failure explains it",
		NextStep: "check the readiness probe and spec.readinessGates: kubectl get pod {POD} -o jsonpath='{.status.conditions}'",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: MinReadySeconds, Link: chain.LinkReady,
		Summary:  "pods are Ready but not yet for spec.minReadySeconds, so not Available",
		NextStep: "wait spec.minReadySeconds",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: RolloutInProgress, Link: chain.LinkReady,
		Summary:  "the rollout is still replacing pods",
		NextStep: "wait, or follow it: kubectl chain deploy/{NAME} --wait",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: EvidenceForbidden, Link: "",
		Summary:  "a link could not be judged: reading its evidence is forbidden",
		NextStep: "ask for get/list on the named resource, or check it with kubectl auth can-i",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: EvidenceUnavailable, Link: "",
		Summary:  "a link could not be judged: reading its evidence failed (timeout, server error)",
		NextStep: "retry; if it persists, check the API server",
		Terminal: TerminalRule{Mode: Transient}},
}
