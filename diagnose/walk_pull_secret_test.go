package diagnose

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestPullSecretNamed: a pull the registry refused, on a pod whose
// imagePullSecrets names a Secret the kubelet could not read, is that
// Secret's cause; the same refusal without the kubelet's word stays
// ImagePullUnauthorized, and a pull that fails otherwise keeps its cause.
// The kubelet's words are pkg/kubelet/kubelet_pods.go's at v1.37.2 (the
// event kubernetes/website#48718 quotes); the refusal is containerd's 403
// of googlecodelabs/monolith-to-microservices#59, the unreachable registry
// kube-state-metrics#1588's, both in the corpus's image families.
func TestPullSecretNamed(t *testing.T) {
	const image = "registry.example.com/maloney-scratch/monolith:1.0.0"
	refused := `Failed to pull image "registry.example.com/maloney-scratch/monolith:1.0.0": rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/maloney-scratch/monolith:1.0.0": failed to resolve reference "registry.example.com/maloney-scratch/monolith:1.0.0": pulling from host registry.example.com failed with status code [manifests 1.0.0]: 403 Forbidden`
	unreachable := `Failed to pull image "registry.example.com/kube-state-metrics/kube-state-metrics:v2.2.0": rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/kube-state-metrics/kube-state-metrics:v2.2.0": failed to resolve reference "registry.example.com/kube-state-metrics/kube-state-metrics:v2.2.0": failed to do request: Head https://registry.example.com/v2/kube-state-metrics/kube-state-metrics/manifests/v2.2.0: dial tcp 172.217.192.82:443: connect: no route to host`
	secretMissing := "Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed."
	for _, tt := range []struct {
		name    string
		failed  string
		secret  bool
		cause   chain.CauseID
		summary string
	}{
		{"refused, the Secret missing", refused, true, decode.ImagePullSecretNotFound, `image pull Secret "regcred" does not exist`},
		{"refused, no word of the Secret", refused, false, decode.ImagePullUnauthorized, ""},
		{"unreachable, the Secret missing", unreachable, true, decode.RegistryUnreachable, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pod := kindPod("web", &metav1.ObjectMeta{Name: "none"}, "", corev1.PodPending, false, map[string]string{"app": "web"})
			pod.OwnerReferences = nil
			pod.Spec.Containers[0].Image = image
			pod.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
			pod.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "` + image + `"`}}
			ref := chain.ObjectRef{Kind: "Pod", Name: "web", UID: pod.UID}
			ev := func(reason, msg string, at time.Duration) chain.Event {
				return chain.Event{Type: "Warning", Reason: reason, Message: msg, Count: 3, First: walkT0.Add(at), Last: walkT0.Add(at + time.Minute),
					Object: ref, FieldPath: "spec.containers{web}", Source: "kubelet"}
			}
			events := []chain.Event{ev("Failed", tt.failed, 2*time.Second), ev("Failed", "Error: ErrImagePull", 2*time.Second)}
			if tt.secret {
				e := ev("FailedToRetrieveImagePullSecret", secretMissing, time.Second)
				e.FieldPath = ""
				events = append(events, e)
			}
			s := &chain.Snapshot{Kind: chain.KindPod, Namespace: "shop", Name: "web", Now: walkT0.Add(3 * time.Minute), Pods: []corev1.Pod{pod}}
			s.Assemble(nil, s.Pods, events)
			r := Walk(s, Options{})
			if r.Verdict.Cause != tt.cause {
				t.Fatalf("cause %s, want %s: %+v", r.Verdict.Cause, tt.cause, r.Verdict)
			}
			l := r.Link(chain.LinkContainers)
			if tt.summary != "" {
				f := l.Findings[0]
				if !strings.Contains(f.Summary, tt.summary) {
					t.Errorf("summary %q, want %q in it", f.Summary, tt.summary)
				}
				if f.Evidence[0].Reason != "FailedToRetrieveImagePullSecret" {
					t.Errorf("first evidence %+v, want the kubelet's event", f.Evidence[0])
				}
				if got := MissingSecrets(r); len(got) != 1 || got[0] != "regcred" {
					t.Errorf("missing Secrets %v, want [regcred] for the producers' lookup", got)
				}
				if strings.Contains(f.NextStep, "{") {
					t.Errorf("next step keeps a placeholder: %s", f.NextStep)
				}
			}
		})
	}
}
