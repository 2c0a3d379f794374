package kubelet

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// TestSeccompProfileMissing: the runtime's error for a Localhost profile
// the node lacks is the corpus's real one, built from containerd's and the
// kubelet's own formats; the container's profile overrides the pod's.
func TestSeccompProfileMissing(t *testing.T) {
	checkLiterals(t, moduleDir(t, "github.com/containerd/containerd/v2@v2.4.2"), []literal{
		{"internal/cri/server/container_create.go", ctrCreateContainer},
		{"contrib/seccomp/seccomp.go", ctrSeccompLoad},
	})
	checkLiterals(t, upstreamDir(t), []literal{{"pkg/kubelet/kuberuntime/kuberuntime_container.go", reasonCreateContainerError}})
	local := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("profiles/unshare.json")}
	pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{SeccompProfile: local}}}
	c := &corev1.Container{Name: "web"}
	want := `failed to create containerd container: cannot load seccomp profile "/var/lib/kubelet/seccomp/profiles/unshare.json": open /var/lib/kubelet/seccomp/profiles/unshare.json: no such file or directory`
	if got := createError(pod, c); got != want {
		t.Errorf("pod's Localhost profile:\n got %q\nwant %q", got, want)
	}
	c.SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if got := createError(pod, c); got != "" {
		t.Errorf("the container's RuntimeDefault overrides the pod's profile, got %q", got)
	}
}
