package kubelet

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// upstreamDir is k8s.io/kubernetes v1.37.2 in the module cache (downloaded if
// missing: the lab binary needs it anyway).
func upstreamDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@v1.37.2").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/kubernetes v1.37.2: %v", err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("locating k8s.io/kubernetes v1.37.2: %v (%s)", err, out)
	}
	return m.Dir
}

// TestFormatsMatchKubelet checks that every reason and message format the
// simulated kubelet writes appears, as a Go string literal, in the kubelet
// source file it was copied from.
func TestFormatsMatchKubelet(t *testing.T) {
	dir := upstreamDir(t)
	tests := []struct {
		file string
		text string
	}{
		{"pkg/kubelet/events/event.go", reasonPulling},
		{"pkg/kubelet/events/event.go", reasonPulled},
		{"pkg/kubelet/events/event.go", reasonCreated},
		{"pkg/kubelet/events/event.go", reasonStarted},
		{"pkg/kubelet/events/event.go", reasonKilling},
		{"pkg/kubelet/events/event.go", reasonStarting},
		{"pkg/kubelet/events/event.go", reasonNodeReady},
		{"pkg/kubelet/images/image_manager.go", msgPulling},
		{"pkg/kubelet/images/image_manager.go", msgPulled},
		{"pkg/kubelet/images/image_manager.go", msgAlreadyPresent},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgCreated},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgStarted},
		{"pkg/kubelet/kuberuntime/kuberuntime_container.go", msgKilling},
		{"pkg/kubelet/kubelet.go", msgStartingKubelet},
		{"pkg/kubelet/kubelet_node_status.go", msgNodeStatus},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasSufficientMemory"},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasNoDiskPressure"},
		{"pkg/kubelet/nodestatus/setters.go", "NodeHasSufficientPID"},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasSufficientMemory},
		{"pkg/kubelet/nodestatus/setters.go", msgHasSufficientMemory},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasNoDiskPressure},
		{"pkg/kubelet/nodestatus/setters.go", msgHasNoDiskPressure},
		{"pkg/kubelet/nodestatus/setters.go", reasonHasSufficientPID},
		{"pkg/kubelet/nodestatus/setters.go", msgHasSufficientPID},
		{"pkg/kubelet/nodestatus/setters.go", reasonKubeletReady},
		{"pkg/kubelet/nodestatus/setters.go", msgKubeletReady},
		{"pkg/kubelet/status/generate.go", reasonContainersNotReady},
		{"pkg/kubelet/status/generate.go", msgUnreadyContainers},
		{"pkg/kubelet/status/generate.go", reasonContainersNotInitialized},
		{"pkg/kubelet/status/generate.go", msgIncompleteContainers},
		{"pkg/kubelet/types/constants.go", reasonSandboxNotReady},
		{"pkg/kubelet/types/constants.go", msgNoPodSandbox},
		{"pkg/kubelet/kubelet_pods.go", reasonContainerCreating},
		{"pkg/kubelet/kubelet_pods.go", reasonPodInitializing},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join(dir, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if lit := strconv.Quote(tt.text); !strings.Contains(string(b), lit) {
			t.Errorf("%s does not contain %s", tt.file, lit)
		}
	}
}
