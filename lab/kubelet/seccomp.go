package kubelet

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	corev1 "k8s.io/api/core/v1"
)

// The runtime's refusal of a container whose Localhost seccomp profile is
// not on the node: containerd v2.4.2 internal/cri/server/container_create.go
// wraps contrib/seccomp/seccomp.go's load error; the kubelet records the
// gRPC status's message as the event "Error: %v" and the waiting reason
// CreateContainerError (pkg/kubelet/kuberuntime/kuberuntime_container.go
// ErrCreateContainer). The real message is in the corpus (security family):
// 'failed to create containerd container: cannot load seccomp profile
// "/var/lib/kubelet/seccomp/profiles/unshare.json": open
// /var/lib/kubelet/seccomp/profiles/unshare.json: no such file or
// directory'.
const (
	ctrCreateContainer         = "failed to create containerd container: %w"
	ctrSeccompLoad             = "cannot load seccomp profile %q: %v"
	reasonCreateContainerError = "CreateContainerError"
	// seccompRoot is the kubelet's seccomp profile root under its default
	// --root-dir (kuberuntime_manager.go: filepath.Join(rootDirectory,
	// "seccomp")). The simulated nodes hold no profile.
	seccompRoot = "/var/lib/kubelet/seccomp"
)

// createError is the runtime's error creating container c of pod, "" when
// it creates it: a Localhost seccomp profile (the container's, else the
// pod's) that the node does not have.
func createError(pod *corev1.Pod, c *corev1.Container) string {
	var p *corev1.SeccompProfile
	if pod.Spec.SecurityContext != nil {
		p = pod.Spec.SecurityContext.SeccompProfile
	}
	if c.SecurityContext != nil && c.SecurityContext.SeccompProfile != nil {
		p = c.SecurityContext.SeccompProfile
	}
	if p == nil || p.Type != corev1.SeccompProfileTypeLocalhost || p.LocalhostProfile == nil {
		return ""
	}
	path := filepath.Join(seccompRoot, *p.LocalhostProfile)
	open := &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}
	return fmt.Errorf(ctrCreateContainer, fmt.Errorf(ctrSeccompLoad, path, open)).Error()
}
