package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// What the PersistentVolume controller and the volume provisioners say about
// a claim that is not bound (pkg/controller/volume/persistentvolume/
// pv_controller.go, v1.8.15 to v1.37.2, and the CSI external-provisioner's
// "failed to provision volume with StorageClass %q: %v"): a class that does
// not exist, no class and no volume to bind, a provisioner that refused, a
// claim that waits for its pod to be scheduled or for its provisioner.
const (
	ClaimStorageClassNotFound    chain.CauseID = "ClaimStorageClassNotFound"
	ClaimNoStorageClass          chain.CauseID = "ClaimNoStorageClass"
	ClaimProvisionerUnauthorized chain.CauseID = "ClaimProvisionerUnauthorized"
	ClaimStorageQuotaExceeded    chain.CauseID = "ClaimStorageQuotaExceeded"
	ClaimWaitingForConsumer      chain.CauseID = "ClaimWaitingForConsumer"
	ClaimCreateFailed            chain.CauseID = "ClaimCreateFailed"
	// ClaimVolumeMismatch: the claim names its volume (spec.volumeName),
	// which does not satisfy it (VolumeMismatch, "Cannot bind to requested
	// volume %q: %s", checkVolumeSatisfyClaim's reasons).
	ClaimVolumeMismatch chain.CauseID = "ClaimVolumeMismatch"
)

var claimCauses = []Cause{
	{ID: ClaimStorageClassNotFound, Link: chain.LinkClaims,
		Summary:  "the claim names a StorageClass that does not exist, so nothing provisions it",
		NextStep: "kubectl get storageclass; create the class, or fix storageClassName (in volumeClaimTemplates a StatefulSet cannot change it: recreate the StatefulSet with --cascade=orphan, then delete the pending claim)",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ClaimNoStorageClass, Link: chain.LinkClaims,
		Summary:  "the claim names no StorageClass, the cluster has no default one, and no PersistentVolume matches it",
		NextStep: "kubectl get storageclass (mark one default: storageclass.kubernetes.io/is-default-class=true), set storageClassName, or create a PersistentVolume that matches the claim's size and access modes",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ClaimProvisionerUnauthorized, Link: chain.LinkClaims,
		Summary:  "the volume provisioner's cloud credentials may not create the disk (the cloud answered unauthorized or access denied)",
		NextStep: "give the CSI controller's identity (IAM role, workload identity, managed identity) the right to create volumes, then it retries: kubectl logs -n kube-system deploy/CONTROLLER -c csi-provisioner",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ClaimStorageQuotaExceeded, Link: chain.LinkClaims,
		Summary:  "the cloud's disk quota is used up, so the provisioner cannot create the volume",
		NextStep: "raise the cloud project's or region's disk quota, or free disks; then the provisioner retries",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ClaimWaitingForConsumer, Link: chain.LinkClaims,
		Summary:  "the claim's StorageClass binds on first use (volumeBindingMode WaitForFirstConsumer): it is provisioned once a pod that uses it is scheduled (not a failure by itself)",
		NextStep: "if its pod stays Pending, the pod's scheduling is the cause: kubectl describe pod {POD} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Transient}},
	{ID: ClaimVolumeMismatch, Link: chain.LinkClaims,
		Summary:  "the claim names the PersistentVolume it wants (spec.volumeName), and that volume does not satisfy it (its class, size, access modes or volume mode differ), so the PersistentVolume controller never binds them",
		NextStep: "kubectl get pv {VOLUME} -o yaml and compare with the claim: make storageClassName (\"\" for none), size, accessModes and volumeMode agree; a claim's spec cannot change: delete and recreate it",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ClaimCreateFailed, Link: chain.LinkClaims,
		Summary:  "the StatefulSet controller could not create a claim of volumeClaimTemplates, so it creates no pod for that ordinal",
		NextStep: "read the error: kubectl get events -n {NAMESPACE} --field-selector involvedObject.kind=StatefulSet; fix volumeClaimTemplates (recreate the StatefulSet with --cascade=orphan to change them)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
}

// ClaimDeleting is the scheduler's word for a claim of the pod that is being
// deleted (its kubernetes.io/pvc-protection finalizer waits for the pod):
// kept in the scheduler's family, whose message it is.
const ClaimDeleting chain.CauseID = "ClaimDeleting"

var claimSchedCauses = []Cause{
	{ID: ClaimDeleting, Link: chain.LinkNodeAssignment,
		Summary:  "a claim the pod needs is being deleted: the scheduler will not place the pod, and a StatefulSet recreates the claim only with a new pod (kubernetes#89910)",
		NextStep: "if the claim was deleted on purpose, delete the pending pod so its controller creates claim and pod anew: kubectl delete pod {POD} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

var (
	// The class lister's NotFound, as the PV controller puts it in a
	// ProvisioningFailed event (findProvisionablePlugin).
	claimClassNotFoundRE = regexp.MustCompile(`(?i)storageclass\.storage\.k8s\.io "([^"]*)" not found`)
	// The in-tree provisioners' "Failed to provision volume with StorageClass
	// %q: %v" (1.6-1.x) and the CSI external-provisioner's lower-case one.
	claimProvisionRE = regexp.MustCompile(`(?is)failed to provision volume with StorageClass "([^"]*)": (.*)$`)
	// ExternalProvisioning: "waiting for a volume to be created, either by
	// external provisioner %q or manually created by system administrator"
	// (1.12) and "Waiting for a volume to be created either by the external
	// provisioner '%s' or manually by the system administrator. ..." (1.29+).
	claimExternalRE = regexp.MustCompile(`(?i)waiting for a volume to be created,? either by (?:the )?external provisioner ["']([^"']*)["']`)
	// WaitForPodScheduled: "waiting for pod %s to be scheduled".
	claimPodScheduledRE = regexp.MustCompile(`^waiting for pods? (\S+) to be scheduled$`)
	claimDeletingRE     = regexp.MustCompile(`persistentvolumeclaim "([^"]*)" is being deleted`)
	// VolumeMismatch: "Cannot bind to requested volume %q: %s" (v1.37.2).
	claimMismatchRE = regexp.MustCompile(`Cannot bind to requested volume "([^"]*)": (.*)$`)
)

// schedClaimDeleting is the scheduler's clause for a claim being deleted
// (volumebinding and volumerestrictions: 'persistentvolumeclaim %q is
// being deleted').
func schedClaimDeleting(text string) (schedFact, bool) {
	d, ok := claimDeletingDecoded(text)
	if !ok {
		return schedFact{}, false
	}
	return schedFact{cause: d.Cause, what: d.Summary, details: d.Details}, true
}

func claimDeletingDecoded(text string) (Decoded, bool) {
	m := claimDeletingRE.FindStringSubmatch(text)
	if m == nil {
		return Decoded{}, false
	}
	return Decoded{Cause: ClaimDeleting, Summary: fmt.Sprintf("claim %q is being deleted", m[1]),
		Details: []chain.Detail{{Key: "claim", Value: m[1]}}}, true
}

// Cloud answers that say the provisioner's identity may not create a disk,
// and that a quota is used up (the quota's 403 first: GCE words a quota as
// "Error 403: Quota 'SSD_TOTAL_GB' exceeded").
var (
	claimQuotaWords        = []string{"quota '", "quotaexceeded", "quota exceeded"}
	claimUnauthorizedWords = []string{"unauthorizedoperation", "accessdenied", "not authorized to perform", "authorizationfailed",
		"identity not found", "permission_denied", "permissiondenied", "does not have authorization"}
)

// ClaimWords decodes the PersistentVolume controller's and the
// provisioners' messages about a claim, pasted alone or as the claim's
// event (ProvisioningFailed, FailedBinding, ExternalProvisioning,
// WaitForFirstConsumer, WaitForPodScheduled, ClaimLost, ClaimMisbound).
func ClaimWords(message string) (Decoded, bool) {
	if d, ok := SnapshotSource(message); ok {
		return d, true
	}
	switch {
	case strings.Contains(message, "no persistent volumes available for this claim and no storage class is set"):
		return Decoded{Cause: ClaimNoStorageClass}, true
	case strings.Contains(message, "waiting for first consumer to be created before binding"):
		return Decoded{Cause: ClaimWaitingForConsumer, Progressing: true}, true
	case strings.Contains(message, "Bound claim has lost") || strings.Contains(message, "Two claims are bound to the same volume"):
		return Decoded{Cause: ClaimLost, Summary: "the claim lost its PersistentVolume: " + rtOneLine(message)}, true
	}
	if m := claimClassNotFoundRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: ClaimStorageClassNotFound, Summary: fmt.Sprintf("StorageClass %q, which the claim names, does not exist", m[1]),
			Details: []chain.Detail{{Key: "storageClass", Value: m[1]}}}, true
	}
	if m := claimPodScheduledRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: ClaimWaitingForConsumer, Progressing: true,
			Summary: fmt.Sprintf("the claim waits for pod %s, which uses it, to be scheduled (volumeBindingMode WaitForFirstConsumer)", m[1])}, true
	}
	if m := claimExternalRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: ClaimPending, Progressing: true,
			Summary:  fmt.Sprintf("the claim waits for external provisioner %q to create its volume", m[1]),
			NextStep: fmt.Sprintf("if it lasts, %s is not running or not watching this class: check its controller pods and logs (kubectl get pods -A | grep -i provisioner; the CSI driver may not be installed)", m[1]),
			Details:  []chain.Detail{{Key: "provisioner", Value: m[1]}}}, true
	}
	if d, ok := claimDeletingDecoded(message); ok {
		return d, true
	}
	if m := claimMismatchRE.FindStringSubmatch(message); m != nil {
		return Decoded{Cause: ClaimVolumeMismatch, Summary: fmt.Sprintf("the claim names volume %q, which does not satisfy it: %s", m[1], m[2]),
			NextStep: Fill(mustCause(ClaimVolumeMismatch).Step, Fields{"VOLUME": m[1]}),
			Details:  []chain.Detail{{Key: "volume", Value: m[1]}}}, true
	}
	if m := claimProvisionRE.FindStringSubmatch(message); m != nil {
		return provisionFailed(m[1], strings.TrimSpace(m[2])), true
	}
	return Decoded{}, false
}

// provisionFailed names what the provisioner's error says when it is the
// cloud's identity or quota, else keeps the driver's words.
func provisionFailed(class, why string) Decoded {
	details := []chain.Detail{{Key: "storageClass", Value: class}}
	lower := strings.ToLower(why)
	has := func(words []string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has(claimQuotaWords):
		return Decoded{Cause: ClaimStorageQuotaExceeded, Summary: fmt.Sprintf("StorageClass %q: the cloud's quota is used up: %s", class, rtOneLine(why)), Details: details}
	case has(claimUnauthorizedWords):
		return Decoded{Cause: ClaimProvisionerUnauthorized, Summary: fmt.Sprintf("StorageClass %q: the provisioner may not create the volume: %s", class, rtOneLine(why)), Details: details}
	}
	return Decoded{Cause: ClaimProvisioningFailed, Summary: fmt.Sprintf("StorageClass %q: %s", class, rtOneLine(why)), Details: details}
}

// claimReasons are the claim events of the PV controller and provisioners.
var claimReasons = []string{"ProvisioningFailed", "FailedBinding", "ExternalProvisioning", "WaitForFirstConsumer",
	"WaitForPodScheduled", "ClaimLost", "ClaimMisbound", "VolumeMismatch"}
