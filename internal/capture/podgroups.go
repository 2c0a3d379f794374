package capture

import (
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// PodGroup is pods of one owner that a paste shows without the owner.
type PodGroup struct {
	// Workload is the pod walked for the group: its first that is not
	// ready, else its first.
	Workload
	// Owner is "replicaset/web-6d4b9" (from Controlled By, or from the
	// pod-template-hash and the name's shape), "" for a pod of its own.
	Owner string
	Pods  int
}

// podOfReplicaSetRe is the name a ReplicaSet gives its pods,
// RS-xxxxx, the ReplicaSet's own name DEPLOYMENT-HASH
// (names.SimpleNameGenerator, five characters).
var podOfReplicaSetRe = regexp.MustCompile(`^(.+-[a-z0-9]{6,10})-[a-z0-9]{5}$`)

// PodGroups are, for pasted text, the pods of namespace ("" for any) no
// workload of the bundle judges, grouped by their owner's name, in the
// order the paste shows them: --all judges each group as the workload it
// stands for. A bundle of objects read from YAML has none: its pods are
// walked by name.
func (b *Bundle) PodGroups(namespace string) []PodGroup {
	if !b.pasted {
		return nil
	}
	judged := map[string]bool{}
	for _, w := range b.Workloads(namespace) {
		if s, err := b.Read(w.Namespace, w.Ref); err == nil {
			for _, p := range s.Pods {
				judged[p.Namespace+"/"+p.Name] = true
			}
		}
	}
	var out []PodGroup
	at := map[string]int{}
	for i := range b.Pods {
		p := &b.Pods[i]
		if namespace != "" && p.Namespace != namespace || judged[p.Namespace+"/"+p.Name] {
			continue
		}
		owner := ownerName(p)
		k := p.Namespace + "/" + owner
		if owner == "" {
			k += p.Name
		}
		j, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, PodGroup{Workload: Workload{Namespace: p.Namespace, Ref: chain.Ref{Kind: chain.KindPod, Name: p.Name}, Object: p}, Owner: owner})
			j = len(out) - 1
		}
		g := &out[j]
		g.Pods++
		if first, _ := g.Object.(*corev1.Pod); chain.PodReady(first) && !chain.PodReady(p) {
			g.Ref.Name, g.Object = p.Name, p
		}
	}
	return out
}

// ownerName is "kind/name" of a pod's controller, from its owner
// reference, else from its pod-template-hash or the shape of its name;
// "" when none shows.
func ownerName(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return strings.ToLower(ref.Kind) + "/" + ref.Name
	}
	if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h != "" {
		if i := strings.Index(p.Name, "-"+h+"-"); i > 0 {
			return "replicaset/" + p.Name[:i+1+len(h)]
		}
	}
	if m := podOfReplicaSetRe.FindStringSubmatch(p.Name); m != nil {
		return "replicaset/" + m[1]
	}
	return ""
}
