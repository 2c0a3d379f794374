package chain

import corev1 "k8s.io/api/core/v1"

// MaxPendingClaims bounds the claims read for pods that wait to be
// scheduled.
const MaxPendingClaims = 3

// PendingClaims are the PersistentVolumeClaims the pods not yet on a node
// use (a persistentVolumeClaim volume, or a generic ephemeral volume's
// claim, named POD-VOLUME), at most MaxPendingClaims: the scheduler
// waits on their binding ("pod has unbound immediate
// PersistentVolumeClaims"), and the PersistentVolume controller's words
// on them say why.
func PendingClaims(pods []corev1.Pod) []string {
	var out []string
	seen := map[string]bool{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		for _, v := range p.Spec.Volumes {
			name := ""
			switch {
			case v.PersistentVolumeClaim != nil:
				name = v.PersistentVolumeClaim.ClaimName
			case v.Ephemeral != nil:
				name = p.Name + "-" + v.Name
			}
			if name == "" || seen[name] {
				continue
			}
			if len(out) == MaxPendingClaims {
				return out
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
