package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Causes of the StatefulSet, DaemonSet, Job, CronJob and OpenKruise
// CloneSet chains, found from their objects' status and their
// controllers' conditions and events.
const (
	WorkloadNotFound          chain.CauseID = "WorkloadNotFound"
	WorkloadDeleting          chain.CauseID = "WorkloadDeleting"
	StatefulSetRollbackTrap   chain.CauseID = "StatefulSetRollbackTrap"
	ClaimProvisioningFailed   chain.CauseID = "ClaimProvisioningFailed"
	ClaimPending              chain.CauseID = "ClaimPending"
	ClaimLost                 chain.CauseID = "ClaimLost"
	NoEligibleNodes           chain.CauseID = "NoEligibleNodes"
	DaemonNodesNotReady       chain.CauseID = "DaemonNodesNotReady"
	JobSuspended              chain.CauseID = "JobSuspended"
	JobRunning                chain.CauseID = "JobRunning"
	BackoffLimitExceeded      chain.CauseID = "BackoffLimitExceeded"
	JobDeadlineExceeded       chain.CauseID = "JobDeadlineExceeded"
	PodFailurePolicyMatched   chain.CauseID = "PodFailurePolicyMatched"
	FailedIndexes             chain.CauseID = "FailedIndexes"
	JobFailed                 chain.CauseID = "JobFailed"
	CronJobSuspended          chain.CauseID = "CronJobSuspended"
	CronJobNotScheduledYet    chain.CauseID = "CronJobNotScheduledYet"
	ConcurrencyForbidBlocked  chain.CauseID = "ConcurrencyForbidBlocked"
	TooManyMissedStartTimes   chain.CauseID = "TooManyMissedStartTimes"
	ScheduleMissed            chain.CauseID = "ScheduleMissed"
	CronJobScheduleInvalid    chain.CauseID = "CronJobScheduleInvalid"
	CronJobJobCreateFailed    chain.CauseID = "CronJobJobCreateFailed"
	StatefulSetPodsNotCreated chain.CauseID = "StatefulSetPodsNotCreated"
	CloneSetPaused            chain.CauseID = "CloneSetPaused"
	CloneSetPodsNotCreated    chain.CauseID = "CloneSetPodsNotCreated"
	// JobTemplateImmutable: an update of a Job's pod template, refused
	// (batch validation: spec.template is immutable once the Job exists).
	JobTemplateImmutable chain.CauseID = "JobTemplateImmutable"
)

var kindCauses = []Cause{
	{ID: WorkloadNotFound, Link: chain.LinkStored,
		Summary:  "the StatefulSet, DaemonSet, Job or CronJob does not exist in this namespace",
		NextStep: "check the name and namespace: kubectl get statefulsets,daemonsets,jobs,cronjobs -n {NAMESPACE} (or pass -n)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: WorkloadDeleting, Link: chain.LinkStored,
		Summary:  "the workload is being deleted (deletionTimestamp is set)",
		NextStep: "wait for the deletion to finish, or look at metadata.finalizers if it hangs",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: CronJobSuspended, Link: chain.LinkStored,
		Summary:  "the CronJob is suspended: the controller starts no Job until it is resumed",
		NextStep: "kubectl patch cronjob/{NAME} -n {NAMESPACE} -p '{\"spec\":{\"suspend\":false}}'",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: JobSuspended, Link: chain.LinkStored,
		Summary:  "the Job is suspended: the controller creates no pod until it is resumed (a queue such as Kueue may resume it on admission)",
		NextStep: "kubectl patch job/{NAME} -n {NAMESPACE} -p '{\"spec\":{\"suspend\":false}}', or check the queue that admits it",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: CronJobScheduleInvalid, Link: chain.LinkSchedule,
		Summary:  "the CronJob controller cannot parse the schedule or time zone",
		NextStep: "fix spec.schedule or spec.timeZone: kubectl edit cronjob/{NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: TooManyMissedStartTimes, Link: chain.LinkSchedule,
		Summary:  "more than 100 start times were missed: the controller starts no Job",
		NextStep: "set or lower spec.startingDeadlineSeconds, and check the controller manager's clock",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ConcurrencyForbidBlocked, Link: chain.LinkSchedule,
		Summary:  "concurrencyPolicy Forbid: a scheduled run was skipped because the previous Job still runs",
		NextStep: "look at the Job that still runs: kubectl chain job/JOB -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ScheduleMissed, Link: chain.LinkSchedule,
		Summary:  "a scheduled run was missed: it could not start within startingDeadlineSeconds",
		NextStep: "check the kube-controller-manager was running at the scheduled time, or raise spec.startingDeadlineSeconds",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CronJobJobCreateFailed, Link: chain.LinkSchedule,
		Summary:  "the CronJob controller could not create the scheduled Job",
		NextStep: "read the error: kubectl get events -n {NAMESPACE} --field-selector involvedObject.kind=CronJob",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CronJobNotScheduledYet, Link: chain.LinkSchedule,
		Summary:  "the CronJob has not reached its first scheduled time yet (not a failure)",
		NextStep: "wait for the schedule, or start a run now: kubectl create job --from=cronjob/{NAME} NAME-manual -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: JobTemplateImmutable, Link: chain.LinkStored,
		Summary:  "the update was refused: a Job's pod template cannot change once the Job exists (kubectl apply and helm upgrade patch it in place)",
		NextStep: "delete the Job and apply again (kubectl delete job {NAME} -n {NAMESPACE}; its pods go with it), or give each run its own Job: a Helm hook with helm.sh/hook-delete-policy before-hook-creation, or a name that changes with the template",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: StatefulSetRollbackTrap, Link: chain.LinkRevision,
		Summary:  "a pod of a broken revision blocks the StatefulSet: with OrderedReady and RollingUpdate the controller waits for it to turn Ready and never replaces it by itself, even after the template is rolled back (kubernetes#67250)",
		NextStep: "delete the pod so the controller recreates it at the update revision: kubectl delete pod {POD} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: StatefulSetPodsNotCreated, Link: chain.LinkPods,
		Summary:  "the StatefulSet has fewer pods than it wants and says nothing about why",
		NextStep: "if it lasts, check the kube-controller-manager: kubectl get events -n {NAMESPACE} --field-selector involvedObject.kind=StatefulSet",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: CloneSetPaused, Link: chain.LinkStored,
		Summary:  "the CloneSet's update is paused (spec.updateStrategy.paused): the CloneSet controller moves no pod to the new revision until it is resumed",
		NextStep: "kubectl patch cloneset/{NAME} -n {NAMESPACE} --type=merge -p '{\"spec\":{\"updateStrategy\":{\"paused\":false}}}'",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: CloneSetPodsNotCreated, Link: chain.LinkPods,
		Summary:  "the CloneSet has fewer pods than it wants and says nothing about why",
		NextStep: "if it lasts, check OpenKruise's controller (kubectl get pods -n kruise-system) and the CloneSet's events: kubectl get events -n {NAMESPACE} --field-selector involvedObject.kind=CloneSet",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ClaimProvisioningFailed, Link: chain.LinkClaims,
		Summary:  "the volume provisioner failed to provision a claim of the volumeClaimTemplates",
		NextStep: "read the provisioner's error and fix the StorageClass or the requested size: kubectl describe pvc CLAIM -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ClaimPending, Link: chain.LinkClaims,
		Summary:  "a claim of the volumeClaimTemplates is not bound yet and nothing says why",
		NextStep: "kubectl describe pvc CLAIM -n {NAMESPACE}; check its StorageClass has a running provisioner",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ClaimLost, Link: chain.LinkClaims,
		Summary:  "a claim of the volumeClaimTemplates lost its PersistentVolume",
		NextStep: "restore the PersistentVolume, or delete the claim (and its data) so the controller creates a new one",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: NoEligibleNodes, Link: chain.LinkNodes,
		Summary:  "no node should run the DaemonSet's pod: its nodeSelector, node affinity or missing tolerations exclude every node",
		NextStep: "compare the DaemonSet's nodeSelector, affinity and tolerations with the nodes: kubectl get nodes --show-labels; kubectl describe nodes | grep Taints",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: DaemonNodesNotReady, Link: chain.LinkNodes,
		Summary:  "nodes that should run the DaemonSet's pod are NotReady: the nodes are broken, not the revision",
		NextStep: "look at the nodes, not the DaemonSet: kubectl describe node {NODE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: JobRunning, Link: chain.LinkCompletion,
		Summary:  "the Job's pods are still running: it has neither completed nor failed (not a failure)",
		NextStep: "wait, or follow it: kubectl chain job/{NAME} --wait",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: BackoffLimitExceeded, Link: chain.LinkCompletion,
		Summary:  "the Job failed: its pods failed more often than spec.backoffLimit allows",
		NextStep: "read why the last pod failed: kubectl logs {POD} -n {NAMESPACE}; fix it and create the Job again",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: JobDeadlineExceeded, Link: chain.LinkCompletion,
		Summary:  "the Job failed: it ran longer than spec.activeDeadlineSeconds",
		NextStep: "make the work faster or raise spec.activeDeadlineSeconds, and create the Job again",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: PodFailurePolicyMatched, Link: chain.LinkCompletion,
		Summary:  "the Job failed: a pod's failure matched a FailJob rule of spec.podFailurePolicy",
		NextStep: "read why the pod failed: kubectl logs {POD} -n {NAMESPACE}; the rule says the failure is not worth a retry",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: FailedIndexes, Link: chain.LinkCompletion,
		Summary:  "the indexed Job failed: some indexes failed beyond their backoffLimitPerIndex",
		NextStep: "read status.failedIndexes and the failed pods' logs: kubectl get pods -n {NAMESPACE} -l job-name={NAME}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: JobFailed, Link: chain.LinkCompletion,
		Summary:  "the Job failed for a reason kubectl chain does not decode; the condition says it verbatim",
		NextStep: "kubectl describe job/{NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
}

// DaemonSetTaintNotTolerated: the DaemonSet asks for nodes by its
// nodeSelector or node affinity, and a taint it does not tolerate keeps it
// off some of them: the nodes it was written for run no pod (a GPU pool
// tainted nvidia.com/gpu, NVIDIA/gpu-operator#2717 and dcgm-exporter#731;
// node-group taints, nebari#3074).
const DaemonSetTaintNotTolerated chain.CauseID = "DaemonSetTaintNotTolerated"

var daemonTaintCauses = []Cause{
	{ID: DaemonSetTaintNotTolerated, Link: chain.LinkNodes,
		Summary:  "nodes the DaemonSet's nodeSelector or node affinity selects carry a taint it does not tolerate, so the nodes it was written for run no pod",
		NextStep: "add the toleration to spec.template.spec.tolerations (kubectl describe nodes | grep Taints), or remove the taint if it was put there by mistake",
		Terminal: TerminalRule{Mode: Immediate}},
}
