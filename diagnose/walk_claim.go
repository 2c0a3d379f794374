package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// claimStatus is a PersistentVolumeClaim's status link (pvc/NAME), judged
// as the StatefulSet's claims link judges its claims: Bound is ok; Lost,
// and a Pending claim the PersistentVolume controller or its provisioner
// cannot bind (a StorageClass that does not exist, a volume it names that
// does not satisfy it, a provisioner that refused), are broken with the
// controller's words quoted; waiting for a provisioner, or for a pod that
// uses it (WaitForFirstConsumer), is progress. false: not a claim.
func (w *walker) claimStatus(obj *unstructured.Unstructured) (chain.Link, bool) {
	gvk := obj.GroupVersionKind()
	if gvk.Group != "" || gvk.Kind != "PersistentVolumeClaim" {
		return chain.Link{}, false
	}
	var pvc corev1.PersistentVolumeClaim
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &pvc); err != nil {
		return chain.Link{}, false
	}
	phase := string(pvc.Status.Phase)
	if phase == "" {
		phase = "no phase yet"
	}
	summary := fmt.Sprintf("%s, StorageClass %s", phase, storageClassOf(&pvc))
	if pvc.Status.Phase == corev1.ClaimBound {
		return chain.Link{ID: chain.LinkStatus, Status: chain.StatusOK, Summary: summary + ", volume " + pvc.Spec.VolumeName}, true
	}
	c := &collector{}
	var notes []string
	w.unboundClaim(c, &pvc, nil, &notes)
	l := w.finish(chain.LinkStatus, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l, true
}

// claimedBy names why a claim holds the pods the scheduler will not place
// for an unbound claim (UnboundPVC): the claim's own cause, from the
// PersistentVolume controller's and its provisioner's words (a StorageClass
// that does not exist, a volume that does not satisfy it, a provisioner
// that refused), as a StatefulSet's claims link names it. A StatefulSet's
// claims link says it above already; a claim only waiting stays as it is.
func (w *walker) claimedBy(links []chain.Link) {
	if len(w.s.Claims) == 0 || slices.Contains(chain.ChainOf(w.s.KindOf()), chain.LinkClaims) {
		return
	}
	for i := range links {
		changed := false
		for j := range links[i].Findings {
			if f := &links[i].Findings[j]; f.Cause == decode.UnboundPVC {
				changed = w.claimCause(f) || changed
			}
		}
		if changed {
			links[i].Status = statusOfFindings(links[i].Findings)
		}
	}
}

// claimCause makes an UnboundPVC finding its first pod's first unbound
// claim's cause, when that names more than a wait.
func (w *walker) claimCause(f *chain.Finding) bool {
	for _, obj := range f.Objects {
		p := w.podNamed(strings.TrimPrefix(obj, "pod/"))
		if p == nil {
			continue
		}
		for _, name := range chain.PendingClaims([]corev1.Pod{*p}) {
			pvc := w.claimNamed(name)
			if pvc == nil || pvc.Status.Phase == corev1.ClaimBound {
				continue
			}
			c := &collector{}
			var notes []string
			w.unboundClaim(c, pvc, p, &notes)
			l := w.finish(chain.LinkClaims, "", c, 0)
			if len(l.Findings) == 0 || l.Findings[0].Progressing {
				continue
			}
			cf := l.Findings[0]
			f.Cause, f.NextStep, f.Terminal, f.Progressing = cf.Cause, cf.NextStep, cf.Terminal, false
			f.Summary = fmt.Sprintf("its claim %s is not bound: %s", name, strings.TrimPrefix(cf.Summary, "claim "+name+": "))
			f.Evidence = append(cf.Evidence, f.Evidence...)
			f.Details = append(f.Details, chain.Detail{Key: "claim", Value: name})
			return true
		}
	}
	return false
}

// podNamed is the snapshot's pod of that name, nil when absent.
func (w *walker) podNamed(name string) *corev1.Pod {
	for i := range w.s.Pods {
		if w.s.Pods[i].Name == name {
			return &w.s.Pods[i]
		}
	}
	return nil
}

// claimNamed is the snapshot's claim of that name, nil when absent.
func (w *walker) claimNamed(name string) *corev1.PersistentVolumeClaim {
	for i := range w.s.Claims {
		if w.s.Claims[i].Name == name {
			return &w.s.Claims[i]
		}
	}
	return nil
}
