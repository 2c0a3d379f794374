package decode

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Causes of the replicaset and pods links: the Deployment controller gave up
// on progress, or the API server refused the pods the ReplicaSet controller
// tried to create.
const (
	QuotaExceeded          chain.CauseID = "QuotaExceeded"
	QuotaRequiresResources chain.CauseID = "QuotaRequiresResources"
	LimitRangeViolation    chain.CauseID = "LimitRangeViolation"
	PodSecurityRejected    chain.CauseID = "PodSecurityRejected"
	AdmissionPolicyDenied  chain.CauseID = "AdmissionPolicyDenied"
	WebhookDenied          chain.CauseID = "WebhookDenied"
	WebhookUnavailable     chain.CauseID = "WebhookUnavailable"
	ServiceAccountNotFound chain.CauseID = "ServiceAccountNotFound"
	PodCreateFailed        chain.CauseID = "PodCreateFailed"
	// PodSecurityPolicyRejected is the policy admission of releases before
	// 1.25 (PodSecurityPolicy) and of OpenShift (SecurityContextConstraints).
	PodSecurityPolicyRejected chain.CauseID = "PodSecurityPolicyRejected"
	// WebhookTimeout is a webhook that answered too slowly, apart from one
	// that cannot be reached: the next step is its latency, not its Service.
	WebhookTimeout chain.CauseID = "WebhookTimeout"

	ProgressDeadlineExceeded chain.CauseID = "ProgressDeadlineExceeded"
	ReplicaSetCreateFailed   chain.CauseID = "ReplicaSetCreateFailed"
)

// NamespacePlaceholder is the {NAMESPACE} field of a next step decoded
// from a message that does not name the namespace: the walk, which knows
// it, fills it (Render).
const NamespacePlaceholder = "{NAMESPACE}"

var controllerCauses = []Cause{
	{ID: QuotaExceeded, Link: chain.LinkPods,
		Summary:  "a ResourceQuota refused the pod: the namespace's usage would exceed its hard limit",
		NextStep: "kubectl describe resourcequota -n {NAMESPACE}; lower the pod's resources (spec.template.spec.containers[].resources) or spec.replicas, or raise the quota's spec.hard",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: QuotaRequiresResources, Link: chain.LinkPods,
		Summary:  "a ResourceQuota on cpu or memory requires every container to set that request or limit",
		NextStep: "set the named resources.requests/limits on every container in spec.template.spec, or add a LimitRange with defaults",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: LimitRangeViolation, Link: chain.LinkPods,
		Summary:  "a LimitRange refused the pod: its resources are outside the allowed min/max",
		NextStep: "kubectl describe limitrange -n {NAMESPACE}; bring spec.template.spec.containers[].resources within its bounds",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: PodSecurityRejected, Link: chain.LinkPods,
		Summary:  "Pod Security admission refused the pod: it violates the namespace's enforced level",
		NextStep: "set the named securityContext fields in spec.template.spec, or relabel the namespace pod-security.kubernetes.io/enforce",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: AdmissionPolicyDenied, Link: chain.LinkPods,
		Summary:  "a ValidatingAdmissionPolicy denied the pod: one of its CEL validations failed",
		NextStep: "change the pod template as the policy's message asks, or the policy (kubectl get validatingadmissionpolicies,validatingadmissionpolicybindings)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: WebhookDenied, Link: chain.LinkPods,
		Summary:  "an admission webhook denied the pod",
		NextStep: "change the pod template as the webhook's message asks, or the policy behind the webhook",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: WebhookUnavailable, Link: chain.LinkPods,
		Summary:  "an admission webhook with failurePolicy Fail could not be called",
		NextStep: "make the webhook's service answer (kubectl get endpointslices -n SVC_NAMESPACE -l kubernetes.io/service-name=SVC), or fix its clientConfig",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: WebhookTimeout, Link: chain.LinkPods,
		Summary:  "an admission webhook with failurePolicy Fail did not answer within its timeoutSeconds",
		NextStep: "check the webhook backend's latency and logs, and the API server's network path to it (on private clusters a firewall rule for the webhook's port); raise its timeoutSeconds (at most 30) if it is slow by design",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: PodSecurityPolicyRejected, Link: chain.LinkPods,
		Summary:  "no PodSecurityPolicy (or OpenShift SecurityContextConstraints) admits the pod for its ServiceAccount",
		NextStep: "grant the pod's ServiceAccount use of a policy that allows what the message names (RBAC verb use on podsecuritypolicies; OpenShift: oc adm policy add-scc-to-user SCC -z SERVICEACCOUNT), or drop those settings from spec.template.spec",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ServiceAccountNotFound, Link: chain.LinkPods,
		Summary:  "the pod's ServiceAccount does not exist",
		NextStep: "create the ServiceAccount (kubectl create serviceaccount NAME -n {NAMESPACE}) or fix spec.template.spec.serviceAccountName",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: PodCreateFailed, Link: chain.LinkPods,
		Summary:  "the ReplicaSet controller could not create pods",
		NextStep: "kubectl describe replicaset -n {NAMESPACE} and read the FailedCreate event",
		Terminal: TerminalRule{Mode: AfterGrace}, Generic: true},
	{ID: ProgressDeadlineExceeded, Link: chain.LinkReplicaSet,
		Summary:  "the rollout made no progress within spec.progressDeadlineSeconds",
		NextStep: "find why the new ReplicaSet's pods are not available in the links after this one; kubectl describe replicaset NAME -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ReplicaSetCreateFailed, Link: chain.LinkReplicaSet,
		Summary:  "the Deployment controller could not create the new ReplicaSet",
		NextStep: "read the Deployment's ReplicaSetCreateError condition: kubectl describe deployment {NAME} -n {NAMESPACE}",
		Terminal: TerminalRule{Mode: AfterGrace}},
}

// failedCreatePrefix starts the ReplicaSet controller's FailedCreate event
// (pkg/controller/controller_utils.go: "Error creating: %v"). The
// ReplicaFailure condition carries the same error without it.
const failedCreatePrefix = "Error creating:"

// statefulSetFailed starts the StatefulSet controller's FailedCreate events
// about a pod or a claim (pkg/controller/statefulset/stateful_pod_control.go
// recordPodEvent, recordClaimEvent: "%s Pod %s in StatefulSet %s failed
// error: %s", "%s Claim %s for Pod %s in StatefulSet %s failed error: %s",
// the verb title-cased).
// Before 1.9 the verb was lower-case.
var statefulSetFailed = regexp.MustCompile(`^(?i:create|update|delete) (Pod \S+|Claim \S+ for Pod \S+) in StatefulSet \S+ failed error: `)

// claimCreateFailedRE is the StatefulSet controller's wrapper of a claim's
// create error inside a pod's FailedCreate (1.27+: "failed to create PVC
// %s: %w").
var claimCreateFailedRE = regexp.MustCompile(`^failed to create PVC (\S+): `)

// cloneSetFailedRE starts OpenKruise's CloneSet controller's FailedCreate
// events (pkg/controller/cloneset/sync/cloneset_scale.go createOnePod:
// "failed to create pod: %v, pod: %v" and "failed to create pvc: %v,
// pvc: %v"): the error, then the object it tried to create, dumped as
// JSON. Its FailedScale condition holds the error alone.
var cloneSetFailedRE = regexp.MustCompile(`^failed to create (pod|pvc): `)

// dumpedNameRE is the name at the head of an object the CloneSet
// controller dumped (json.Marshal: metadata first, its name first).
var dumpedNameRE = regexp.MustCompile(`^\{"metadata":\{"name":"([^"]+)"`)

// cloneSetError is a CloneSet controller's FailedCreate message without
// its wrapper: the error, and the claim's name when the object it could
// not create was a claim of its volumeClaimTemplates.
func cloneSetError(m []string, msg string) (err, claim string) {
	err = msg[len(m[0]):]
	sep := ", " + m[1] + ": {"
	if i := strings.Index(err, sep); i >= 0 {
		if n := dumpedNameRE.FindStringSubmatch(err[i+len(sep)-1:]); n != nil && m[1] == "pvc" {
			claim = n[1]
		}
		err = err[:i]
	}
	return strings.TrimSpace(err), claim
}

// FailedCreate decodes the message of a ReplicaSet's FailedCreate event
// ("Error creating: ...") or of a ReplicaFailure condition (on the ReplicaSet
// or the Deployment). The pods link is blocked by whatever refused the
// create, so the admission plugin that refused it is the cause, not the
// controller.
func FailedCreate(message string) Decoded {
	err := strings.TrimSpace(message)
	if rest, ok := strings.CutPrefix(err, failedCreatePrefix); ok {
		err = strings.TrimSpace(rest)
	}
	claim := ""
	if m := statefulSetFailed.FindStringSubmatch(err); m != nil {
		err = strings.TrimSpace(err[len(m[0]):])
		if strings.HasPrefix(m[1], "Claim ") {
			claim = strings.Fields(m[1])[1]
		}
	}
	if m := claimCreateFailedRE.FindStringSubmatch(err); m != nil {
		claim, err = m[1], strings.TrimSpace(err[len(m[0]):])
	}
	if m := cloneSetFailedRE.FindStringSubmatch(err); m != nil {
		err, claim = cloneSetError(m, err)
	}
	if d, ok := sidecarRefused(err); ok {
		return d // a native sidecar's restartPolicy dropped on the way (sidecar.go)
	}
	if d, ok := decodeAdmission(err); ok {
		return d
	}
	if claim != "" {
		// The claim of a volumeClaimTemplate was refused for a reason
		// admission does not name (an invalid template, a class's limit).
		return Decoded{Cause: ClaimCreateFailed, Summary: fmt.Sprintf("claim %s could not be created: %s", claim, rtOneLine(err)),
			Details: []chain.Detail{{Key: "claim", Value: claim}, {Key: "error", Value: err}}}
	}
	if err == "" {
		return emptyDenial()
	}
	return podCreateFailed(err)
}

// podCreateFailed keeps an error no decoder knows verbatim, so the user still
// reads what the API server said.
func podCreateFailed(err string) Decoded {
	d := Decoded{Cause: PodCreateFailed}
	if err != "" {
		d.Summary = "cannot create pods: " + err
		d.Details = []chain.Detail{{Key: "error", Value: err}}
	}
	return d
}

// Deployment condition reasons, from pkg/controller/deployment/util/deployment_util.go.
const (
	reasonTimedOut       = "ProgressDeadlineExceeded"
	reasonFailedRSCreate = "ReplicaSetCreateError"
	reasonFailedDelete   = "FailedDelete"
)

// DeploymentCondition decodes a Deployment condition that says the rollout is
// stuck: Progressing=False with reason ProgressDeadlineExceeded or
// ReplicaSetCreateError, and ReplicaFailure=True (copied from the ReplicaSet,
// decoded as FailedCreate). ok is false for every other condition: those say
// nothing is wrong, or nothing this decoder can name (Available=False is
// judged from the pods, a paused rollout from the spec, and a FailedDelete
// replica failure does not block new pods).
func DeploymentCondition(c appsv1.DeploymentCondition) (d Decoded, ok bool) {
	switch {
	case c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == reasonTimedOut:
		return ProgressDeadline(c.Message), true
	case c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == reasonFailedRSCreate:
		return ReplicaSetCreateError(c.Message), true
	case c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue && c.Reason != reasonFailedDelete:
		return FailedCreate(c.Message), true
	}
	return Decoded{}, false
}

// timedOutRE matches pkg/controller/deployment/progress.go: 'ReplicaSet %q
// has timed out progressing.' or, before a new ReplicaSet exists,
// 'Deployment %q has timed out progressing.'.
var timedOutRE = regexp.MustCompile(`^(ReplicaSet|Deployment) "([^"]*)" has timed out progressing\.$`)

// ProgressDeadline decodes the Deployment controller's words for a
// rollout past its progressDeadlineSeconds. The walk asks it about an Argo
// Rollout's Progressing condition too, which the Rollouts controller words
// as the Deployment controller does.
func ProgressDeadline(message string) Decoded {
	d := Decoded{Cause: ProgressDeadlineExceeded}
	m := timedOutRE.FindStringSubmatch(strings.TrimSpace(message))
	if m == nil {
		return d
	}
	kind, name := m[1], m[2]
	d.Summary = kind + ` "` + name + `" has timed out progressing (spec.progressDeadlineSeconds exceeded)`
	if kind == "ReplicaSet" {
		d.Details = []chain.Detail{{Key: "replicaset", Value: name}}
		d.NextStep = "find why the pods of ReplicaSet \"" + name + "\" are not available in the links after this one; kubectl describe replicaset " + name + " -n " + NamespacePlaceholder
		return d
	}
	d.Details = []chain.Detail{{Key: "deployment", Value: name}}
	d.NextStep = "the Deployment controller never got a new ReplicaSet going: kubectl describe deployment " + name + " -n " + NamespacePlaceholder
	return d
}

// failedRSCreateRE matches pkg/controller/deployment/sync.go: 'Failed to
// create new replica set %q: %v'.
var failedRSCreateRE = regexp.MustCompile(`(?s)^Failed to create new replica set "([^"]*)": (.*)$`)

// ReplicaSetCreateError decodes the Deployment's ReplicaSetCreateError event
// or Progressing condition message. The ReplicaSet itself went through
// admission, so a quota or webhook that refused it is named in the details
// and its next step reused.
func ReplicaSetCreateError(message string) Decoded {
	msg := strings.TrimSpace(message)
	d := Decoded{Cause: ReplicaSetCreateFailed}
	m := failedRSCreateRE.FindStringSubmatch(msg)
	if m == nil {
		if msg != "" {
			d.Summary = msg
			d.Details = []chain.Detail{{Key: "error", Value: msg}}
		}
		return d
	}
	name, err := m[1], m[2]
	d.Summary = `cannot create ReplicaSet "` + name + `": ` + err
	d.Details = []chain.Detail{{Key: "replicaset", Value: name}, {Key: "error", Value: err}}
	if inner, ok := decodeAdmission(err); ok {
		d.Summary = `cannot create ReplicaSet "` + name + `": ` + inner.Summary
		d.NextStep = inner.NextStep
		d.Details = append(d.Details, chain.Detail{Key: "rejectedBy", Value: string(inner.Cause)})
	}
	return d
}
