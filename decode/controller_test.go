package decode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Webhook refusals and errors no decoder knows. The event wrapper is
// kubernetes pkg/controller/controller_utils.go "Error creating: %v".
var controllerCases = []failedCreateCase{
	{
		// apiserver pkg/admission/plugin/webhook/errors/statuserror.go:
		// 'admission webhook %q denied the request' + ': %s' (the webhook's own message)
		name:    "webhook denied",
		message: `Error creating: admission webhook "require-team-label.policy.example.internal" denied the request: missing required label "team"`,
		want: Decoded{
			Cause:    WebhookDenied,
			Summary:  `admission webhook "require-team-label.policy.example.internal" denied the pod: missing required label "team"`,
			NextStep: `change spec.template as webhook "require-team-label.policy.example.internal" asks: missing required label "team"`,
			Details: []chain.Detail{
				{Key: "webhook", Value: "require-team-label.policy.example.internal"},
				{Key: "message", Value: `missing required label "team"`},
			},
		},
	},
	{
		// statuserror.go: '%s %s' with "without explanation"
		name:    "webhook denied without explanation",
		message: `Error creating: admission webhook "require-team-label.policy.example.internal" denied the request without explanation`,
		want: Decoded{
			Cause:    WebhookDenied,
			Summary:  `admission webhook "require-team-label.policy.example.internal" denied the pod without explanation`,
			NextStep: `ask the owner of admission webhook "require-team-label.policy.example.internal" (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations) why it denies the pod`,
			Details:  []chain.Detail{{Key: "webhook", Value: "require-team-label.policy.example.internal"}},
		},
	},
	{
		// apiserver pkg/util/webhook/error.go 'failed calling webhook %q: %v',
		// validating/dispatcher.go 'failed to call webhook: %w' around Go's
		// url.Error '%s %q: %s', wrapped by NewInternalError 'Internal error occurred: %v'
		name:    "webhook unreachable",
		message: `Error creating: Internal error occurred: failed calling webhook "require-team-label.policy.example.internal": failed to call webhook: Post "https://policy-webhook.policy-system.svc:443/validate?timeout=10s": dial tcp 10.96.14.20:443: connect: connection refused`,
		want: Decoded{
			Cause:    WebhookUnavailable,
			Summary:  `admission webhook "require-team-label.policy.example.internal" could not be called: failed to call webhook: Post "https://policy-webhook.policy-system.svc:443/validate?timeout=10s": dial tcp 10.96.14.20:443: connect: connection refused`,
			NextStep: `make service "policy-webhook" in namespace "policy-system" answer: kubectl get endpointslices -n policy-system -l kubernetes.io/service-name=policy-webhook; or fix the clientConfig of admission webhook "require-team-label.policy.example.internal"`,
			Details: []chain.Detail{
				{Key: "webhook", Value: "require-team-label.policy.example.internal"},
				{Key: "error", Value: `failed to call webhook: Post "https://policy-webhook.policy-system.svc:443/validate?timeout=10s": dial tcp 10.96.14.20:443: connect: connection refused`},
				{Key: "service", Value: "policy-system/policy-webhook"},
			},
		},
	},
	{
		// same, the service resolver's error from apiserver
		// pkg/util/proxy/proxy.go 'no endpoints available for service %q'
		name:    "webhook without endpoints, ReplicaFailure condition",
		message: `Internal error occurred: failed calling webhook "inject.mesh.example.internal": failed to call webhook: Post "https://mesh-injector.mesh.svc:443/inject?timeout=10s": no endpoints available for service "mesh-injector"`,
		want: Decoded{
			Cause:    WebhookUnavailable,
			Summary:  `admission webhook "inject.mesh.example.internal" could not be called: failed to call webhook: Post "https://mesh-injector.mesh.svc:443/inject?timeout=10s": no endpoints available for service "mesh-injector"`,
			NextStep: `make service "mesh-injector" in namespace "mesh" answer: kubectl get endpointslices -n mesh -l kubernetes.io/service-name=mesh-injector; or fix the clientConfig of admission webhook "inject.mesh.example.internal"`,
			Details: []chain.Detail{
				{Key: "webhook", Value: "inject.mesh.example.internal"},
				{Key: "error", Value: `failed to call webhook: Post "https://mesh-injector.mesh.svc:443/inject?timeout=10s": no endpoints available for service "mesh-injector"`},
				{Key: "service", Value: "mesh/mesh-injector"},
			},
		},
	},
	{
		// same, the Service itself missing: pkg/util/proxy ResolveCluster
		// returns the service lister's NotFound 'service %q not found'; as
		// the lab's webhook-unavailable scenario shows it
		name:    "webhook service missing",
		message: `Error creating: Internal error occurred: failed calling webhook "validate-pods.policy.lab.kubectl-chain.io": failed to call webhook: Post "https://policy-webhook.sc-webhook-unavailable.svc:443/validate?timeout=5s": service "policy-webhook" not found`,
		want: Decoded{
			Cause:    WebhookUnavailable,
			Summary:  `admission webhook "validate-pods.policy.lab.kubectl-chain.io" could not be called: failed to call webhook: Post "https://policy-webhook.sc-webhook-unavailable.svc:443/validate?timeout=5s": service "policy-webhook" not found`,
			NextStep: `service "policy-webhook" does not exist in namespace "sc-webhook-unavailable": reinstall the webhook's backend, or delete the configuration of admission webhook "validate-pods.policy.lab.kubectl-chain.io" it left behind (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations)`,
			Details: []chain.Detail{
				{Key: "webhook", Value: "validate-pods.policy.lab.kubectl-chain.io"},
				{Key: "error", Value: `failed to call webhook: Post "https://policy-webhook.sc-webhook-unavailable.svc:443/validate?timeout=5s": service "policy-webhook" not found`},
				{Key: "service", Value: "sc-webhook-unavailable/policy-webhook"},
			},
		},
	},
	{
		// apiserver pkg/admission/plugin/resourcequota/controller.go:
		// "status unknown for quota: %s, resources: %s" (quota controller not caught up)
		name:    "unknown error kept verbatim",
		message: `Error creating: pods "web-5d8f9c7b6-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu`,
		want: Decoded{
			Cause:   PodCreateFailed,
			Summary: `cannot create pods: pods "web-5d8f9c7b6-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu`,
			Details: []chain.Detail{{Key: "error", Value: `pods "web-5d8f9c7b6-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu`}},
		},
	},
	{
		// apiserver pkg/admission/plugin/namespace/lifecycle/admission.go:
		// "unable to create new content in namespace %s because it is being
		// terminated" (no event for it: only the ReplicaFailure condition)
		name:    "namespace terminating, ReplicaFailure condition",
		message: `pods "web-5d8f9c7b6-" is forbidden: unable to create new content in namespace prod because it is being terminated`,
		want: Decoded{
			Cause:   PodCreateFailed,
			Summary: `cannot create pods: pods "web-5d8f9c7b6-" is forbidden: unable to create new content in namespace prod because it is being terminated`,
			Details: []chain.Detail{{Key: "error", Value: `pods "web-5d8f9c7b6-" is forbidden: unable to create new content in namespace prod because it is being terminated`}},
		},
	},
	{
		// OpenKruise's CloneSet controller (cloneset_scale.go createOnePod:
		// "failed to create pod: %v, pod: %v"): the error, then the pod it
		// tried to create dumped as JSON, which the summary leaves out.
		name:    "CloneSet's wrapper, the pod dumped after the error",
		message: `failed to create pod: pods "sample-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu, pod: {"metadata":{"name":"sample-x7k2p","generateName":"sample-","namespace":"shop","labels":{"app":"sample"}},"spec":{"containers":[{"name":"web","image":"registry.lab.internal/web:v1"}]}}`,
		want: Decoded{
			Cause:   PodCreateFailed,
			Summary: `cannot create pods: pods "sample-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu`,
			Details: []chain.Detail{{Key: "error", Value: `pods "sample-x7k2p" is forbidden: status unknown for quota: compute, resources: limits.cpu,requests.cpu`}},
		},
	},
	{
		// kubernetes/kubernetes#55924 (1.8): a webhook that denied without a
		// message left "Error creating: " and nothing after it.
		name:    "empty",
		message: "",
		want:    emptyDenial(),
	},
}

func TestFailedCreateController(t *testing.T) {
	for _, tc := range controllerCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FailedCreate(tc.message)); diff != "" {
				t.Errorf("FailedCreate(%q) mismatch (-want +got):\n%s", tc.message, diff)
			}
		})
	}
}

// quotaOnReplicaSets is the Deployment controller's message when a quota on
// object counts refuses the new ReplicaSet: pkg/controller/deployment/sync.go
// 'Failed to create new replica set %q: %v' around NewForbidden and the
// resourcequota "exceeded quota" format.
const quotaOnReplicaSets = `Failed to create new replica set "web-5d8f9c7b6": replicasets.apps "web-5d8f9c7b6" is forbidden: exceeded quota: objects, requested: count/replicasets.apps=1, used: count/replicasets.apps=10, limited: count/replicasets.apps=10`

func TestDeploymentCondition(t *testing.T) {
	tests := []struct {
		name   string
		cond   appsv1.DeploymentCondition
		want   Decoded
		wantOK bool
	}{
		{
			// pkg/controller/deployment/progress.go 'ReplicaSet %q has timed out progressing.'
			name: "progress deadline, replicaset",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-5d8f9c7b6" has timed out progressing.`},
			want: Decoded{
				Cause:    ProgressDeadlineExceeded,
				Summary:  `ReplicaSet "web-5d8f9c7b6" has timed out progressing (spec.progressDeadlineSeconds exceeded)`,
				NextStep: `find why the pods of ReplicaSet "web-5d8f9c7b6" are not available in the links after this one; kubectl describe replicaset web-5d8f9c7b6 -n {NAMESPACE}`,
				Details:  []chain.Detail{{Key: "replicaset", Value: "web-5d8f9c7b6"}},
			},
			wantOK: true,
		},
		{
			// progress.go 'Deployment %q has timed out progressing.'
			name: "progress deadline, deployment",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ProgressDeadlineExceeded", Message: `Deployment "web" has timed out progressing.`},
			want: Decoded{
				Cause:    ProgressDeadlineExceeded,
				Summary:  `Deployment "web" has timed out progressing (spec.progressDeadlineSeconds exceeded)`,
				NextStep: "the Deployment controller never got a new ReplicaSet going: kubectl describe deployment web -n {NAMESPACE}",
				Details:  []chain.Detail{{Key: "deployment", Value: "web"}},
			},
			wantOK: true,
		},
		{
			// sync.go 'Failed to create new replica set %q: %v', reason ReplicaSetCreateError
			name: "replicaset create error",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ReplicaSetCreateError", Message: quotaOnReplicaSets},
			want: Decoded{
				Cause:    ReplicaSetCreateFailed,
				Summary:  `cannot create ReplicaSet "web-5d8f9c7b6": exceeded quota "objects": requested count/replicasets.apps=1, used count/replicasets.apps=10, limited count/replicasets.apps=10`,
				NextStep: "kubectl describe resourcequota objects -n {NAMESPACE}; then delete old ReplicaSets or lower spec.revisionHistoryLimit, or raise the quota's spec.hard",
				Details: []chain.Detail{
					{Key: "replicaset", Value: "web-5d8f9c7b6"},
					{Key: "error", Value: `replicasets.apps "web-5d8f9c7b6" is forbidden: exceeded quota: objects, requested: count/replicasets.apps=1, used: count/replicasets.apps=10, limited: count/replicasets.apps=10`},
					{Key: "rejectedBy", Value: "QuotaExceeded"},
				},
			},
			wantOK: true,
		},
		{
			// ReplicaFailure copied from the ReplicaSet (progress.go getReplicaFailures)
			name: "replica failure",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedCreate", Message: `pods "web-5d8f9c7b6-" is forbidden: error looking up service account prod/web-sa: serviceaccount "web-sa" not found`},
			want: Decoded{
				Cause:    ServiceAccountNotFound,
				Summary:  `ServiceAccount "web-sa" not found in namespace "prod"`,
				NextStep: "create it (kubectl create serviceaccount web-sa -n prod) or fix spec.template.spec.serviceAccountName",
				Details:  []chain.Detail{{Key: "serviceAccount", Value: "web-sa"}, {Key: "namespace", Value: "prod"}},
			},
			wantOK: true,
		},
		{
			// replica_set_utils.go reason "FailedDelete": scale-down, does not block pods
			name: "replica failure on delete",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedDelete", Message: `pods "web-5d8f9c7b6-x7k2p" not found`},
		},
		{
			// progress.go 'ReplicaSet %q has successfully progressed.'
			name: "progressing fine",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
				Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "web-5d8f9c7b6" has successfully progressed.`},
		},
		{
			// sync.go "Deployment does not have minimum availability."
			name: "unavailable is judged from pods",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse,
				Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."},
		},
		{
			// sync.go "Deployment is paused"
			name: "paused is judged from the spec",
			cond: appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionUnknown,
				Reason: "DeploymentPaused", Message: "Deployment is paused"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := DeploymentCondition(tc.cond)
			if ok != tc.wantOK {
				t.Fatalf("DeploymentCondition ok = %v, want %v", ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DeploymentCondition mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplicaSetCreateErrorUnknown(t *testing.T) {
	// sync.go 'Failed to create new replica set %q: %v' around the
	// NamespaceLifecycle refusal (apiserver namespace/lifecycle/admission.go).
	msg := `Failed to create new replica set "web-5d8f9c7b6": replicasets.apps "web-5d8f9c7b6" is forbidden: unable to create new content in namespace prod because it is being terminated`
	want := Decoded{
		Cause:   ReplicaSetCreateFailed,
		Summary: `cannot create ReplicaSet "web-5d8f9c7b6": replicasets.apps "web-5d8f9c7b6" is forbidden: unable to create new content in namespace prod because it is being terminated`,
		Details: []chain.Detail{
			{Key: "replicaset", Value: "web-5d8f9c7b6"},
			{Key: "error", Value: `replicasets.apps "web-5d8f9c7b6" is forbidden: unable to create new content in namespace prod because it is being terminated`},
		},
	}
	if diff := cmp.Diff(want, ReplicaSetCreateError(msg)); diff != "" {
		t.Errorf("ReplicaSetCreateError mismatch (-want +got):\n%s", diff)
	}
}

// TestControllerCausesDeclared keeps decoders and catalogue in step: every
// cause a decoder returns is declared once, with a next step and a rule.
func TestControllerCausesDeclared(t *testing.T) {
	seen := map[chain.CauseID]bool{}
	for _, c := range controllerCauses {
		if seen[c.ID] {
			t.Errorf("cause %s declared twice", c.ID)
		}
		seen[c.ID] = true
		if c.Summary == "" || c.NextStep == "" || c.Terminal.Mode == "" || c.Link == "" {
			t.Errorf("cause %s is incomplete: %+v", c.ID, c)
		}
	}
	for _, tc := range append(append([]failedCreateCase{}, admissionCases...), controllerCases...) {
		if !seen[tc.want.Cause] {
			t.Errorf("case %q decodes to undeclared cause %s", tc.name, tc.want.Cause)
		}
	}
}

func FuzzFailedCreate(f *testing.F) {
	for _, tc := range append(append([]failedCreateCase{}, admissionCases...), controllerCases...) {
		f.Add(tc.message)
	}
	f.Add(quotaOnReplicaSets)
	f.Add(`ReplicaSet "web-5d8f9c7b6" has timed out progressing.`)
	f.Add(`Error creating: pods "a-" is forbidden: [, but , but x]`)
	f.Add(`violates PodSecurity "x": (((, "a`)
	links := map[chain.CauseID]chain.LinkID{}
	for _, c := range controllerCauses {
		links[c.ID] = c.Link
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := FailedCreate(msg)
		if diff := cmp.Diff(got, FailedCreate(msg)); diff != "" {
			t.Fatalf("not deterministic for %q:\n%s", msg, diff)
		}
		if links[got.Cause] != chain.LinkPods {
			t.Fatalf("FailedCreate(%q) = cause %q, not a declared pods-link cause", msg, got.Cause)
		}
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(msg), failedCreatePrefix)) != "" && got.Summary == "" {
			t.Fatalf("FailedCreate(%q) has no summary", msg)
		}
		for _, d := range got.Details {
			if d.Key == "" {
				t.Fatalf("FailedCreate(%q) has a detail without key: %+v", msg, got.Details)
			}
		}
		if diff := cmp.Diff(got, FailedCreate(failedCreatePrefix+" "+msg)); diff != "" && !strings.HasPrefix(strings.TrimSpace(msg), failedCreatePrefix) {
			t.Fatalf("the event prefix changed the decoding of %q:\n%s", msg, diff)
		}
		rs := ReplicaSetCreateError(msg)
		if links[rs.Cause] != chain.LinkReplicaSet {
			t.Fatalf("ReplicaSetCreateError(%q) = cause %q", msg, rs.Cause)
		}
		pd, ok := DeploymentCondition(appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing,
			Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: msg})
		if !ok || pd.Cause != ProgressDeadlineExceeded {
			t.Fatalf("DeploymentCondition(ProgressDeadlineExceeded, %q) = %+v, %v", msg, pd, ok)
		}
	})
}
