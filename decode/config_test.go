package decode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// klPod is how the kubelet formats a pod in its messages:
// format.Pod's "%s_%s(%s)" (pkg/kubelet/util/format/pod.go).
const klPod = "web-7d9c6b5d8-x2x4q_default(0f2b7c7e-3a52-4c1e-9a57-1f0a3e5c9d11)"

// klCase is one decoder input and the whole value expected from it.
type klCase struct {
	name    string
	reason  string
	message string
	want    Decoded
	ok      bool
}

func klRun(t *testing.T, decode func(string, string) (Decoded, bool), cases []klCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := decode(tc.reason, tc.message)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (got %+v)", ok, tc.ok, got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// klSeed adds every table input to a fuzz corpus.
func klSeed(f *testing.F, cases []klCase) {
	for _, tc := range cases {
		f.Add(tc.reason, tc.message)
	}
}

// klCheck asserts the invariants every decoder keeps on any input: a
// declared cause whenever ok, nothing when not ok, one-line summaries, named
// details, and the same answer twice.
func klCheck(t *testing.T, decode func(string, string) (Decoded, bool), causes []Cause, reason, message string) {
	t.Helper()
	d, ok := decode(reason, message)
	d2, ok2 := decode(reason, message)
	if ok != ok2 || !cmp.Equal(d, d2) {
		t.Fatalf("not deterministic for %q %q", reason, message)
	}
	klCheckDecoded(t, d, ok, causes)
}

func klCheckDecoded(t *testing.T, d Decoded, ok bool, causes []Cause) {
	t.Helper()
	if !ok {
		if !cmp.Equal(d, Decoded{}) {
			t.Fatalf("not ok but decoded %+v", d)
		}
		return
	}
	known := false
	for _, c := range causes {
		known = known || c.ID == d.Cause
	}
	if !known {
		t.Fatalf("cause %q is not declared", d.Cause)
	}
	if strings.Contains(d.Summary, "\n") || strings.Contains(d.NextStep, "\n") {
		t.Fatalf("multi-line summary or next step: %+v", d)
	}
	for _, det := range d.Details {
		if det.Key == "" {
			t.Fatalf("detail without key: %+v", d.Details)
		}
	}
}

// klConfigCases are real kubelet texts for ContainerConfig.
var klConfigCases = []klCase{
	{
		// pkg/kubelet/util/manager/watch_based_manager.go: apierrors.NewNotFound(c.groupResource, name)
		// with corev1.Resource("configmap") (pkg/kubelet/configmap/configmap_manager.go);
		// apimachinery pkg/api/errors/errors.go: "%s %q not found"
		name: "configmap not found", reason: "CreateContainerConfigError",
		message: `configmap "app-config" not found`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigMapNotFound,
			Summary:  `ConfigMap "app-config" not found`,
			NextStep: `create ConfigMap "app-config" in the pod's namespace (kubectl create configmap app-config --from-literal=KEY=VALUE), or fix the name in spec.template.spec.containers[].envFrom[].configMapRef / env[].valueFrom.configMapKeyRef`,
			Details:  []chain.Detail{{Key: "kind", Value: "configmap"}, {Key: "name", Value: "app-config"}},
		},
	},
	{
		// The API server's NotFound for a GET (cache-based manager): "%s %q not found" with resource "configmaps".
		name: "configmaps not found from the API server", reason: "CreateContainerConfigError",
		message: `configmaps "app-config" not found`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigMapNotFound,
			Summary:  `ConfigMap "app-config" not found`,
			NextStep: `create ConfigMap "app-config" in the pod's namespace (kubectl create configmap app-config --from-literal=KEY=VALUE), or fix the name in spec.template.spec.containers[].envFrom[].configMapRef / env[].valueFrom.configMapKeyRef`,
			Details:  []chain.Detail{{Key: "kind", Value: "configmap"}, {Key: "name", Value: "app-config"}},
		},
	},
	{
		// pkg/kubelet/kuberuntime/kuberuntime_container.go: events.FailedToCreateContainer, "Error: %v";
		// pkg/kubelet/secret/secret_manager.go corev1.Resource("secret"); "%s %q not found"
		name: "secret not found event", reason: "Failed",
		message: `Error: secret "db-creds" not found`,
		ok:      true,
		want: Decoded{
			Cause:    SecretNotFound,
			Summary:  `Secret "db-creds" not found`,
			NextStep: `create Secret "db-creds" in the pod's namespace (kubectl create secret generic db-creds --from-literal=KEY=VALUE), or fix the name in spec.template.spec.containers[].envFrom[].secretRef / env[].valueFrom.secretKeyRef`,
			Details:  []chain.Detail{{Key: "kind", Value: "secret"}, {Key: "name", Value: "db-creds"}},
		},
	},
	{
		// pkg/kubelet/kubelet_pods.go: "couldn't find key %v in ConfigMap %v/%v"
		name: "configmap key not found", reason: "CreateContainerConfigError",
		message: `couldn't find key DB_HOST in ConfigMap default/app-config`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigKeyNotFound,
			Summary:  `key "DB_HOST" not found in ConfigMap default/app-config`,
			NextStep: `add key "DB_HOST" to ConfigMap "app-config" (kubectl edit configmap app-config -n default), or fix spec.template.spec.containers[].env[].valueFrom.configMapKeyRef.key (or mark it optional: true)`,
			Details: []chain.Detail{
				{Key: "kind", Value: "configmap"}, {Key: "name", Value: "app-config"},
				{Key: "key", Value: "DB_HOST"}, {Key: "namespace", Value: "default"},
			},
		},
	},
	{
		// pkg/kubelet/kubelet_pods.go: "couldn't find key %v in Secret %v/%v", via "Error: %v"
		name: "secret key not found event", reason: "Failed",
		message: `Error: couldn't find key password in Secret default/db-creds`,
		ok:      true,
		want: Decoded{
			Cause:    ConfigKeyNotFound,
			Summary:  `key "password" not found in Secret default/db-creds`,
			NextStep: `add key "password" to Secret "db-creds" (kubectl edit secret db-creds -n default), or fix spec.template.spec.containers[].env[].valueFrom.secretKeyRef.key (or mark it optional: true)`,
			Details: []chain.Detail{
				{Key: "kind", Value: "secret"}, {Key: "name", Value: "db-creds"},
				{Key: "key", Value: "password"}, {Key: "namespace", Value: "default"},
			},
		},
	},
	{
		// pkg/kubelet/kuberuntime/security_context_others.go:
		// "container has runAsNonRoot and image will run as root (pod: %q, container: %s)"
		name: "runAsNonRoot root image", reason: "CreateContainerConfigError",
		message: `container has runAsNonRoot and image will run as root (pod: "` + klPod + `", container: web)`,
		ok:      true,
		want: Decoded{
			Cause:    RunAsNonRootViolation,
			Summary:  `container "web" has runAsNonRoot but the image runs as root`,
			NextStep: `set spec.template.spec.containers[web].securityContext.runAsUser to a non-zero numeric UID, or build the image with a numeric non-root USER`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}},
		},
	},
	{
		// security_context_others.go: "container has runAsNonRoot and image has non-numeric user (%s),
		// cannot verify user is non-root (pod: %q, container: %s)"
		name: "runAsNonRoot non-numeric user", reason: "Failed",
		message: `Error: container has runAsNonRoot and image has non-numeric user (appuser), cannot verify user is non-root (pod: "` + klPod + `", container: web)`,
		ok:      true,
		want: Decoded{
			Cause:    RunAsNonRootViolation,
			Summary:  `container "web" has runAsNonRoot but the image's user "appuser" is not numeric, so the kubelet cannot verify it is non-root`,
			NextStep: `set spec.template.spec.containers[web].securityContext.runAsUser to a non-zero numeric UID, or build the image with a numeric non-root USER`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}},
		},
	},
	{
		// security_context_others.go: "container's runAsUser breaks non-root policy (pod: %q, container: %s)"
		name: "runAsUser 0", reason: "CreateContainerConfigError",
		message: `container's runAsUser breaks non-root policy (pod: "` + klPod + `", container: web)`,
		ok:      true,
		want: Decoded{
			Cause:    RunAsNonRootViolation,
			Summary:  `container "web" has runAsNonRoot but runAsUser is 0`,
			NextStep: `set spec.template.spec.containers[web].securityContext.runAsUser to a non-zero numeric UID, or build the image with a numeric non-root USER`,
			Details:  []chain.Detail{{Key: "container", Value: "web"}},
		},
	},
	{
		// pkg/kubelet/util/manager/watch_based_manager.go: "failed to sync %s cache: %v" with
		// wait's ErrWaitTimeout "timed out waiting for the condition" (apimachinery pkg/util/wait/error.go)
		name: "cache sync blip", reason: "CreateContainerConfigError",
		message: `failed to sync configmap cache: timed out waiting for the condition`,
		ok:      true,
		want: Decoded{
			Cause:    ContainerConfigError,
			Summary:  `the kubelet could not sync its configmap cache: timed out waiting for the condition`,
			NextStep: `usually a short blip while the kubelet's watch starts; if it persists, check the node's connection to the API server`,
			Details:  []chain.Detail{{Key: "cache", Value: "configmap"}},
		},
	},
	{
		// pkg/kubelet/kubelet_pods.go: "cannot find volume %q to mount into container %q"
		name: "other config error", reason: "CreateContainerConfigError",
		message: `cannot find volume "config" to mount into container "web"`,
		ok:      true,
		want: Decoded{
			Cause:   ContainerConfigError,
			Summary: `container config error: cannot find volume "config" to mount into container "web"`,
		},
	},
	{
		// Same text as a Failed event: not claimed, the Failed reason is shared with runtime errors.
		name: "other config error as Failed event", reason: "Failed",
		message: `Error: cannot find volume "config" to mount into container "web"`,
	},
	{
		// pkg/kubelet/images/image_manager.go: the image manager's Failed event "Error: %v" with ErrImagePull.
		name: "image error is not config", reason: "Failed",
		message: `Error: ErrImagePull`,
	},
	{
		// pkg/kubelet/images/image_manager.go: "Back-off pulling image %q"
		name: "other reason", reason: "BackOff",
		message: `Back-off pulling image "registry.lab.internal/web:v9"`,
	},
}

func TestContainerConfig(t *testing.T) {
	klRun(t, ContainerConfig, klConfigCases)
}

// klAllCauses are the causes this package's kubelet decoders may return,
// including the runtime start causes Termination hands over to.
func klAllCauses() []Cause {
	var all []Cause
	for _, g := range [][]Cause{configCauses, mountCauses, crashCauses, probeCauses, evictCauses, startCauses} {
		all = append(all, g...)
	}
	return all
}

// TestKubeletCauses pins the catalogue entries of config, mount, crash,
// probe, hook and eviction causes: links and terminal rules are part of the
// CI contract.
func TestKubeletCauses(t *testing.T) {
	type entry struct {
		Link     chain.LinkID
		Terminal TerminalRule
	}
	grace, immediate, transient := TerminalRule{Mode: AfterGrace}, TerminalRule{Mode: Immediate}, TerminalRule{Mode: Transient}
	retried := TerminalRule{Mode: AfterGrace, Retried: true}
	repeats := func(n int32) TerminalRule { return TerminalRule{Mode: AfterRepeats, Repeats: n} }
	c, r := chain.LinkContainers, chain.LinkReady
	want := map[chain.CauseID]entry{
		ConfigMapNotFound: {c, grace}, SecretNotFound: {c, grace}, ConfigKeyNotFound: {c, grace},
		RunAsNonRootViolation: {c, immediate}, ContainerConfigError: {c, grace},
		VolumeConfigMapNotFound: {c, retried}, VolumeSecretNotFound: {c, retried}, VolumePVCNotFound: {c, retried},
		MultiAttachError: {c, retried}, VolumeMountFailed: {c, retried}, VolumeAttachTimeout: {c, retried}, VolumeAttachFailed: {c, retried},
		VolumeMountTimeout: {c, retried}, CSIDriverNotRegistered: {c, retried}, SecretProviderMountFailed: {c, retried},
		CrashLoopBackOff: {c, repeats(3)}, OOMKilled: {c, repeats(2)}, ContainerCompleted: {c, repeats(3)},
		InitContainerFailed:  {c, repeats(3)},
		ReadinessProbeFailed: {r, transient}, LivenessProbeFailed: {c, repeats(3)}, StartupProbeFailed: {r, repeats(3)},
		PostStartHookFailed: {c, repeats(2)}, PreStopHookFailed: {c, repeats(2)},
		PodEvicted: {c, transient}, EvictedMemoryPressure: {c, grace}, EvictedDiskPressure: {c, grace},
		EphemeralStorageLimitExceeded: {c, grace}, KubeletAdmissionRejected: {c, grace},
	}
	got := map[chain.CauseID]entry{}
	for _, g := range [][]Cause{configCauses, mountCauses, crashCauses, probeCauses, hookCauses, evictCauses} {
		for _, cause := range g {
			if _, dup := got[cause.ID]; dup {
				t.Errorf("cause %s declared twice", cause.ID)
			}
			if cause.Summary == "" || cause.NextStep == "" {
				t.Errorf("cause %s lacks a summary or next step", cause.ID)
			}
			got[cause.ID] = entry{cause.Link, cause.Terminal}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("causes mismatch (-want +got):\n%s", diff)
	}
}

func FuzzContainerConfig(f *testing.F) {
	klSeed(f, klConfigCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, ContainerConfig, configCauses, reason, message)
	})
}
