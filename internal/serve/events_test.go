package serve

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestVerdictEvent: a verdict change is an Event on the workload, Warning
// when it broke, with the cause and the next step.
func TestVerdictEvent(t *testing.T) {
	r := &chain.Report{Kind: chain.KindDeployment, Namespace: "shop", Name: "web", Verdict: chain.Verdict{Health: chain.Broken,
		Link: chain.LinkContainers, Cause: "ImageNotFound", Summary: `2/2 pods: image "web:v9" not found`, NextStep: "fix the image"}}
	c := Change{Key: Key{Namespace: "shop", Kind: "Deployment", Name: "web"}, From: Verdict{Health: chain.Healthy}, Report: r}
	ev := verdictEvent(c, corev1.ObjectReference{APIVersion: "apps/v1", UID: "uid-1"}, time.Unix(1764920000, 0), "watcher-0")
	if ev.Type != "Warning" || ev.Reason != "ChainBroken" || ev.InvolvedObject.UID != "uid-1" || ev.InvolvedObject.APIVersion != "apps/v1" ||
		ev.Message != `kubectl chain: broken at containers: ImageNotFound (2/2 pods: image "web:v9" not found); next: fix the image; was healthy` {
		t.Errorf("event: %s %s %q %+v", ev.Type, ev.Reason, ev.Message, ev.InvolvedObject)
	}
	r.Verdict = chain.Verdict{Health: chain.Healthy}
	c.From = Verdict{Health: chain.Broken}
	if ev := verdictEvent(c, corev1.ObjectReference{APIVersion: "apps/v1", UID: "uid-1"}, time.Unix(1764920000, 0), "watcher-0"); ev.Type != "Normal" || ev.Reason != "ChainHealthy" {
		t.Errorf("healed: %s %s", ev.Type, ev.Reason)
	}
}

// TestInvolvedObject: the Event names the judged object as the API serves
// it, whatever its kind: a built-in workload, a kind a CRD serves, an
// operator's resource; a snapshot without its object names none.
func TestInvolvedObject(t *testing.T) {
	cs := &unstructured.Unstructured{}
	cs.SetAPIVersion("apps.kruise.io/v1alpha1")
	cs.SetKind("CloneSet")
	cs.SetUID("uid-cs")
	widget := &unstructured.Unstructured{}
	widget.SetUID("uid-w")
	for _, c := range []struct {
		snap     *chain.Snapshot
		api, uid string
	}{
		{&chain.Snapshot{Kind: chain.KindDeployment, Deployment: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{UID: "uid-d"}}}, "apps/v1", "uid-d"},
		{&chain.Snapshot{Kind: chain.KindCloneSet, CloneSet: cs}, "apps.kruise.io/v1alpha1", "uid-cs"},
		{&chain.Snapshot{Kind: "Widget", Object: widget, API: &chain.APIResource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget"}}, "example.com/v1", "uid-w"},
		{&chain.Snapshot{Kind: chain.KindStatefulSet}, "", ""},
	} {
		ref, ok := involvedObject(c.snap)
		if ok != (c.uid != "") || ref.APIVersion != c.api || string(ref.UID) != c.uid {
			t.Errorf("%s: %+v %v, want %s %s", c.snap.Kind, ref, ok, c.api, c.uid)
		}
	}
}
