package kubelet

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAppArmorAdmission: the refusal is the kubelet's own words at v1.37.2
// (checked in the module), and a profile is required as isRequired says:
// any but Unconfined, on the pod or a container.
func TestAppArmorAdmission(t *testing.T) {
	up := upstreamDir(t)
	checkLiterals(t, up, []literal{
		{"pkg/kubelet/lifecycle/handlers.go", msgAppArmorEnforce},
		{"pkg/security/apparmor/validate.go", msgAppArmorNoHost},
		{"pkg/kubelet/lifecycle/handlers.go", reasonAppArmor},
	})
	checkCode(t, up, []literal{{"pkg/kubelet/kubelet.go", `"Pod was rejected: " + message`}})
	if got := fmt.Sprintf(msgAppArmorEnforce, msgAppArmorNoHost); got != appArmorRejectedMsg {
		t.Errorf("message %q, want %q", got, appArmorRejectedMsg)
	}
	local := &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: new(string)}
	*local.LocalhostProfile = "k8s-deny-write"
	for _, tt := range []struct {
		name string
		pod  corev1.Pod
		want bool
	}{
		{"none", corev1.Pod{}, false},
		{"pod Localhost", corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{AppArmorProfile: local}}}, true},
		{"container RuntimeDefault", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{SecurityContext: &corev1.SecurityContext{
			AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}}}}}}, true},
		{"container Unconfined", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{SecurityContext: &corev1.SecurityContext{
			AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}}}}}}, false},
	} {
		if got := appArmorRequired(&tt.pod); got != tt.want {
			t.Errorf("%s: required = %v, want %v", tt.name, got, tt.want)
		}
	}
}
