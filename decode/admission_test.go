package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// failedCreateCase is one FailedCreate event or ReplicaFailure condition
// message and what it decodes to.
type failedCreateCase struct {
	name    string
	message string
	want    Decoded
}

// The event is "Error creating: %v" (kubernetes pkg/controller/controller_utils.go);
// the ReplicaFailure condition carries the same error without the prefix
// (pkg/controller/replicaset/replica_set_utils.go). Admission errors are
// wrapped by apimachinery pkg/api/errors/errors.go NewForbidden: '%s %q is
// forbidden: %v'. Mutating plugins (ServiceAccount, NamespaceLifecycle) run
// before the name is generated, so they name the generateName; validating
// ones (ResourceQuota, LimitRanger, PodSecurity) the generated name.
var admissionCases = []failedCreateCase{
	{
		// apiserver pkg/admission/plugin/policy/validating/dispatcher.go:
		// "ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s",
		// the message being the validation's message (validator.go), through
		// admission.NewForbidden; as the lab's admission-policy-denied
		// scenario shows it (a validating plugin: the generated name)
		name:    "admission policy denied",
		message: `Error creating: pods "web-6d4b8c9f7-2xkqp" is forbidden: ValidatingAdmissionPolicy 'sc-admission-policy-denied-require-team-label' with binding 'sc-admission-policy-denied-require-team-label' denied request: pods must carry the label team`,
		want: Decoded{
			Cause:    AdmissionPolicyDenied,
			Summary:  `ValidatingAdmissionPolicy "sc-admission-policy-denied-require-team-label" denied the pod: pods must carry the label team`,
			NextStep: `change spec.template as the policy requires ("pods must carry the label team"), or the policy: kubectl get validatingadmissionpolicy sc-admission-policy-denied-require-team-label -o yaml; kubectl get validatingadmissionpolicybinding sc-admission-policy-denied-require-team-label -o yaml`,
			Details: []chain.Detail{
				{Key: "policy", Value: "sc-admission-policy-denied-require-team-label"},
				{Key: "binding", Value: "sc-admission-policy-denied-require-team-label"},
				{Key: "message", Value: "pods must carry the label team"},
			},
		},
	},
	{
		// validator.go without message: "failed expression: %v"
		name:    "admission policy denied without message, ReplicaFailure condition",
		message: `pods "web-6d4b8c9f7-2xkqp" is forbidden: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-prod' denied request: failed expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))`,
		want: Decoded{
			Cause:    AdmissionPolicyDenied,
			Summary:  `ValidatingAdmissionPolicy "no-latest" denied the pod: failed expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))`,
			NextStep: `change spec.template as the policy requires ("failed expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))"), or the policy: kubectl get validatingadmissionpolicy no-latest -o yaml; kubectl get validatingadmissionpolicybinding no-latest-prod -o yaml`,
			Details: []chain.Detail{
				{Key: "policy", Value: "no-latest"},
				{Key: "binding", Value: "no-latest-prod"},
				{Key: "message", Value: "failed expression: object.spec.containers.all(c, !c.image.endsWith(':latest'))"},
			},
		},
	},
	{
		// dispatcher.go "failed to configure binding: %w" around
		// policy/generic/policy_dispatcher.go "no params found for policy
		// binding with `Deny` parameterNotFoundAction"
		name:    "admission policy binding without params",
		message: "Error creating: pods \"web-6d4b8c9f7-2xkqp\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-prod' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
		want: Decoded{
			Cause:    AdmissionPolicyDenied,
			Summary:  "ValidatingAdmissionPolicy \"replica-limit\" cannot be evaluated and fails closed: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
			NextStep: "fix the policy or its binding (kubectl get validatingadmissionpolicy replica-limit -o yaml; kubectl get validatingadmissionpolicybinding replica-limit-prod -o yaml): with failurePolicy Fail it denies every pod while broken",
			Details: []chain.Detail{
				{Key: "policy", Value: "replica-limit"},
				{Key: "binding", Value: "replica-limit-prod"},
				{Key: "message", Value: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"},
			},
		},
	},
	{
		// plugin/cel/activation.go "expression '%v' resulted in error: %v"
		// (CEL's "no such key"), the policy failing closed
		name:    "admission policy expression error",
		message: `Error creating: pods "web-6d4b8c9f7-2xkqp" is forbidden: ValidatingAdmissionPolicy 'team-label' with binding 'team-label' denied request: expression 'object.metadata.labels.team != ""' resulted in error: no such key: team`,
		want: Decoded{
			Cause:    AdmissionPolicyDenied,
			Summary:  `ValidatingAdmissionPolicy "team-label" cannot be evaluated and fails closed: expression 'object.metadata.labels.team != ""' resulted in error: no such key: team`,
			NextStep: "fix the policy or its binding (kubectl get validatingadmissionpolicy team-label -o yaml; kubectl get validatingadmissionpolicybinding team-label -o yaml): with failurePolicy Fail it denies every pod while broken",
			Details: []chain.Detail{
				{Key: "policy", Value: "team-label"},
				{Key: "binding", Value: "team-label"},
				{Key: "message", Value: `expression 'object.metadata.labels.team != ""' resulted in error: no such key: team`},
			},
		},
	},
	{
		// dispatcher.go without a binding: "ValidatingAdmissionPolicy '%s'
		// denied request: %s" with "failed to configure policy: %w" around
		// generic/policy_source.go "failed to find resource referenced by
		// paramKind: '%v'" (a schema.GroupVersionKind)
		name:    "admission policy with unknown paramKind, no binding named",
		message: `Error creating: pods "web-6d4b8c9f7-2xkqp" is forbidden: ValidatingAdmissionPolicy 'replica-limit' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'rules.example.com/v1, Kind=ReplicaLimit'`,
		want: Decoded{
			Cause:    AdmissionPolicyDenied,
			Summary:  `ValidatingAdmissionPolicy "replica-limit" cannot be evaluated and fails closed: failed to configure policy: failed to find resource referenced by paramKind: 'rules.example.com/v1, Kind=ReplicaLimit'`,
			NextStep: "fix the policy or its binding (kubectl get validatingadmissionpolicy replica-limit -o yaml): with failurePolicy Fail it denies every pod while broken",
			Details: []chain.Detail{
				{Key: "policy", Value: "replica-limit"},
				{Key: "message", Value: `failed to configure policy: failed to find resource referenced by paramKind: 'rules.example.com/v1, Kind=ReplicaLimit'`},
			},
		},
	},
	{
		// apiserver pkg/admission/plugin/resourcequota/controller.go:
		// "exceeded quota: %s, requested: %s, used: %s, limited: %s"
		name:    "quota exceeded, event",
		message: `Error creating: pods "web-5d8f9c7b6-" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=9, limited: cpu=10`,
		want: Decoded{
			Cause:    QuotaExceeded,
			Summary:  `exceeded quota "compute": requested cpu=2, used cpu=9, limited cpu=10`,
			NextStep: "kubectl describe resourcequota compute -n {NAMESPACE}; then lower spec.template.spec.containers[].resources for cpu, or raise the quota's spec.hard",
			Details: []chain.Detail{
				{Key: "quota", Value: "compute"},
				{Key: "resources", Value: "cpu"},
				{Key: "requested", Value: "cpu=2"},
				{Key: "used", Value: "cpu=9"},
				{Key: "limited", Value: "cpu=10"},
			},
		},
	},
	{
		// same format; prettyPrint joins "name=quantity" sorted, with ","
		name:    "quota exceeded on two resources, ReplicaFailure condition",
		message: `pods "web-5d8f9c7b6-x7k2p" is forbidden: exceeded quota: compute, requested: limits.memory=2Gi,requests.cpu=500m, used: limits.memory=7Gi,requests.cpu=9800m, limited: limits.memory=8Gi,requests.cpu=10`,
		want: Decoded{
			Cause:    QuotaExceeded,
			Summary:  `exceeded quota "compute": requested limits.memory=2Gi,requests.cpu=500m, used limits.memory=7Gi,requests.cpu=9800m, limited limits.memory=8Gi,requests.cpu=10`,
			NextStep: "kubectl describe resourcequota compute -n {NAMESPACE}; then lower spec.template.spec.containers[].resources for limits.memory,requests.cpu, or raise the quota's spec.hard",
			Details: []chain.Detail{
				{Key: "quota", Value: "compute"},
				{Key: "resources", Value: "limits.memory,requests.cpu"},
				{Key: "requested", Value: "limits.memory=2Gi,requests.cpu=500m"},
				{Key: "used", Value: "limits.memory=7Gi,requests.cpu=9800m"},
				{Key: "limited", Value: "limits.memory=8Gi,requests.cpu=10"},
			},
		},
	},
	{
		// same format, object count quota
		name:    "quota exceeded on pod count",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: exceeded quota: pod-count, requested: pods=1, used: pods=10, limited: pods=10`,
		want: Decoded{
			Cause:    QuotaExceeded,
			Summary:  `exceeded quota "pod-count": requested pods=1, used pods=10, limited pods=10`,
			NextStep: "kubectl describe resourcequota pod-count -n {NAMESPACE}; then lower spec.replicas or the rollout's maxSurge, or raise the quota's spec.hard",
			Details: []chain.Detail{
				{Key: "quota", Value: "pod-count"},
				{Key: "resources", Value: "pods"},
				{Key: "requested", Value: "pods=1"},
				{Key: "used", Value: "pods=10"},
				{Key: "limited", Value: "pods=10"},
			},
		},
	},
	{
		// resourcequota/controller.go "failed quota: %s: %v" around
		// kubernetes pkg/quota/v1/evaluator/core/pods.go "must specify %s",
		// items "%s for: %s" joined by "; ", containers sorted, joined by ","
		name:    "quota requires requests and limits",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: failed quota: compute: must specify limits.cpu for: web; requests.memory for: sidecar,web`,
		want: Decoded{
			Cause:    QuotaRequiresResources,
			Summary:  `quota "compute" requires limits.cpu (missing on web), requests.memory (missing on sidecar,web)`,
			NextStep: "in spec.template.spec set resources.limits.cpu on containers web and resources.requests.memory on containers sidecar,web, or add a LimitRange with default requests and limits in {NAMESPACE}",
			Details: []chain.Detail{
				{Key: "quota", Value: "compute"},
				{Key: "missing", Value: "limits.cpu for: web"},
				{Key: "missing", Value: "requests.memory for: sidecar,web"},
			},
		},
	},
	{
		// kubernetes plugin/pkg/admission/limitranger/admission.go:
		// "maximum %s usage per %s is %s, but limit is %s"
		name:    "limitrange maximum",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: maximum cpu usage per Container is 1, but limit is 2`,
		want: Decoded{
			Cause:    LimitRangeViolation,
			Summary:  "LimitRange: maximum cpu usage per Container is 1, but limit is 2",
			NextStep: "kubectl describe limitrange -n {NAMESPACE}; bring spec.template.spec.containers[].resources for cpu within its bounds, or change the LimitRange",
			Details:  []chain.Detail{{Key: "violation", Value: "maximum cpu usage per Container is 1, but limit is 2"}},
		},
	},
	{
		// limitranger/admission.go: "minimum %s usage per %s is %s, but request is %s"
		// and "%s max limit to request ratio per %s is %s, but provided ratio is %f",
		// aggregated by apimachinery util/errors as "[a, b]"
		name:    "limitrange aggregate of two violations",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000]`,
		want: Decoded{
			Cause:    LimitRangeViolation,
			Summary:  "LimitRange: minimum memory usage per Container is 64Mi, but request is 32Mi; cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000",
			NextStep: "kubectl describe limitrange -n {NAMESPACE}; bring spec.template.spec.containers[].resources for memory,cpu within its bounds, or change the LimitRange",
			Details: []chain.Detail{
				{Key: "violation", Value: "minimum memory usage per Container is 64Mi, but request is 32Mi"},
				{Key: "violation", Value: "cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000"},
			},
		},
	},
	{
		// limitranger/admission.go: "maximum %s usage per %s is %s.  No limit is specified"
		name:    "limitrange no limit specified",
		message: `pods "web-5d8f9c7b6-x7k2p" is forbidden: maximum memory usage per Pod is 1Gi.  No limit is specified`,
		want: Decoded{
			Cause:    LimitRangeViolation,
			Summary:  "LimitRange: maximum memory usage per Pod is 1Gi.  No limit is specified",
			NextStep: "kubectl describe limitrange -n {NAMESPACE}; bring spec.template.spec.containers[].resources for memory within its bounds, or change the LimitRange",
			Details:  []chain.Detail{{Key: "violation", Value: "maximum memory usage per Pod is 1Gi.  No limit is specified"}},
		},
	},
	{
		// pod-security-admission admission/admission.go: 'violates PodSecurity %q: %s';
		// policy/checks.go ForbiddenDetail 'reason (detail)' joined by ", ";
		// policy/check_allowPrivilegeEscalation.go, check_capabilities_restricted.go,
		// check_runAsNonRoot.go, check_seccompProfile_restricted.go
		name:    "pod security restricted",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
		want: Decoded{
			Cause:   PodSecurityRejected,
			Summary: `violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile`,
			NextStep: `in spec.template.spec set securityContext.allowPrivilegeEscalation=false (container "web"); ` +
				`set securityContext.capabilities.drop=["ALL"] (container "web"); ` +
				`set securityContext.runAsNonRoot=true (pod or container "web"); ` +
				`set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost" (pod or container "web"); ` +
				`or relabel the namespace: kubectl label namespace {NAMESPACE} pod-security.kubernetes.io/enforce=baseline --overwrite`,
			Details: []chain.Detail{
				{Key: "policy", Value: "restricted:latest"},
				{Key: "violation", Value: `allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false)`},
				{Key: "violation", Value: `unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"])`},
				{Key: "violation", Value: `runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true)`},
				{Key: "violation", Value: `seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
			},
		},
	},
	{
		// same; two containers (joinQuote: `", "`) and the two clauses of
		// check_capabilities_restricted.go joined by "; "
		name:    "pod security restricted, two containers and an added capability",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: violates PodSecurity "restricted:v1.37": allowPrivilegeEscalation != false (containers "web", "sidecar" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "web", "sidecar" must set securityContext.capabilities.drop=["ALL"]; container "web" must not include "NET_ADMIN" in securityContext.capabilities.add)`,
		want: Decoded{
			Cause:   PodSecurityRejected,
			Summary: `violates PodSecurity "restricted:v1.37": allowPrivilegeEscalation != false, unrestricted capabilities`,
			NextStep: `in spec.template.spec set securityContext.allowPrivilegeEscalation=false (containers "web", "sidecar"); ` +
				`set securityContext.capabilities.drop=["ALL"] (containers "web", "sidecar"); ` +
				`remove "NET_ADMIN" from securityContext.capabilities.add (container "web"); ` +
				`or relabel the namespace: kubectl label namespace {NAMESPACE} pod-security.kubernetes.io/enforce=baseline --overwrite`,
			Details: []chain.Detail{
				{Key: "policy", Value: "restricted:v1.37"},
				{Key: "violation", Value: `allowPrivilegeEscalation != false (containers "web", "sidecar" must set securityContext.allowPrivilegeEscalation=false)`},
				{Key: "violation", Value: `unrestricted capabilities (containers "web", "sidecar" must set securityContext.capabilities.drop=["ALL"]; container "web" must not include "NET_ADMIN" in securityContext.capabilities.add)`},
			},
		},
	},
	{
		// policy/check_hostNamespaces.go, check_hostPathVolumes.go,
		// check_hostPorts.go, check_privileged.go; baseline IDs sorted
		name:    "pod security baseline",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostPath volumes (volume "data"), hostPort (container "web" uses hostPort 8080), privileged (container "web" must not set securityContext.privileged=true)`,
		want: Decoded{
			Cause:   PodSecurityRejected,
			Summary: `violates PodSecurity "baseline:latest": host namespaces, hostPath volumes, hostPort, privileged`,
			NextStep: `in spec.template.spec remove host namespaces (hostNetwork=true); ` +
				`remove hostPath volumes (volume "data"); ` +
				`remove hostPort (container "web" uses hostPort 8080); ` +
				`do not set securityContext.privileged=true (container "web"); ` +
				`or relabel the namespace: kubectl label namespace {NAMESPACE} pod-security.kubernetes.io/enforce=privileged --overwrite`,
			Details: []chain.Detail{
				{Key: "policy", Value: "baseline:latest"},
				{Key: "violation", Value: "host namespaces (hostNetwork=true)"},
				{Key: "violation", Value: `hostPath volumes (volume "data")`},
				{Key: "violation", Value: `hostPort (container "web" uses hostPort 8080)`},
				{Key: "violation", Value: `privileged (container "web" must not set securityContext.privileged=true)`},
			},
		},
	},
	{
		// kubernetes plugin/pkg/admission/serviceaccount/admission.go:
		// "error looking up service account %s/%s: %w" around
		// apimachinery NewNotFound '%s %q not found' (resource "serviceaccount")
		name:    "service account not found",
		message: `Error creating: pods "web-5d8f9c7b6-" is forbidden: error looking up service account prod/web-sa: serviceaccount "web-sa" not found`,
		want: Decoded{
			Cause:    ServiceAccountNotFound,
			Summary:  `ServiceAccount "web-sa" not found in namespace "prod"`,
			NextStep: "create it (kubectl create serviceaccount web-sa -n prod) or fix spec.template.spec.serviceAccountName",
			Details:  []chain.Detail{{Key: "serviceAccount", Value: "web-sa"}, {Key: "namespace", Value: "prod"}},
		},
	},
	{
		// As pasted in kube-stresscheck#7: a sentence's full stop after it.
		name:    "service account not found, pasted with a full stop",
		message: `Error creating: pods "kube-stresscheck-7f75dbbcb7-" is forbidden: error looking up service account kube-system/kube-stresscheck: serviceaccount "kube-stresscheck" not found.`,
		want: Decoded{
			Cause:    ServiceAccountNotFound,
			Summary:  `ServiceAccount "kube-stresscheck" not found in namespace "kube-system"`,
			NextStep: "create it (kubectl create serviceaccount kube-stresscheck -n kube-system) or fix spec.template.spec.serviceAccountName",
			Details:  []chain.Detail{{Key: "serviceAccount", Value: "kube-stresscheck"}, {Key: "namespace", Value: "kube-system"}},
		},
	},
}

func TestFailedCreateAdmission(t *testing.T) {
	for _, tc := range admissionCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FailedCreate(tc.message)); diff != "" {
				t.Errorf("FailedCreate(%q) mismatch (-want +got):\n%s", tc.message, diff)
			}
		})
	}
}

func TestSplitTopLevel(t *testing.T) {
	got := splitTopLevel(`a (x, y), b ("p, q" r), c`)
	want := []string{`a (x, y)`, `b ("p, q" r)`, `c`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitTopLevel mismatch (-want +got):\n%s", diff)
	}
}
