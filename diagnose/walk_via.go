package diagnose

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// viaNote says, first among the pods link's notes, where the pod the user
// named (kubectl chain pod/NAME) stands in its Deployment's chain: one of
// the pods judged, a pod of an older ReplicaSet that the rollout replaces,
// or gone since. A ReplicaSet named is the report's header alone.
func (w *walker) viaNote(links []chain.Link) {
	name, ok := strings.CutPrefix(w.s.Via, "pod/")
	if !ok {
		return
	}
	note := fmt.Sprintf("pod %s, the one named, is gone: deleted or replaced since", name)
	for i := range w.s.Pods {
		p := &w.s.Pods[i]
		if p.Name != name {
			continue
		}
		switch owner := metav1.GetControllerOf(p); {
		case w.rs != nil && !metav1.IsControlledBy(p, w.rs) && owner != nil:
			note = fmt.Sprintf("pod %s, the one named, is of ReplicaSet %s, not the current one (%s): the rollout replaces it", name, owner.Name, w.rs.Name)
		default:
			note = fmt.Sprintf("pod %s, the one named, is one of the pods judged here (%s)", name, p.Status.Phase)
		}
		break
	}
	for i := range links {
		if links[i].ID == chain.LinkPods {
			links[i].Notes = append([]string{note}, links[i].Notes...)
		}
	}
}
