package cli

import (
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestCloneSetChain: an OpenKruise CloneSet is walked by its own chain,
// a Deployment's without ReplicaSets. Argo CD's own CloneSet fixtures
// over the lab's real pods (overPods), with the status the CloneSet
// controller writes for those pods: over capture healthy's, healthy (no
// Service in it: serving is not judged); over capture image-not-found's, broken
// at containers with ImageNotFound, the cause the pods show, where the
// walk as any resource could only quote them; and one of its pods named
// walks the CloneSet.
func TestCloneSetChain(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	// over gives the fixture the lab's pods' labels and the status
	// cloneset_status.go calculateStatus writes for replicas pods of the
	// update revision, ready of them Ready.
	over := func(replicas, ready int64) func(*unstructured.Unstructured) {
		return func(cs *unstructured.Unstructured) {
			labels := map[string]any{"app": "web"}
			for _, set := range []error{
				unstructured.SetNestedField(cs.Object, replicas, "spec", "replicas"),
				unstructured.SetNestedMap(cs.Object, map[string]any{"matchLabels": labels}, "spec", "selector"),
				unstructured.SetNestedMap(cs.Object, labels, "spec", "template", "metadata", "labels"),
			} {
				if set != nil {
					t.Fatal(set)
				}
			}
			cs.Object["status"] = map[string]any{"observedGeneration": cs.GetGeneration(), "replicas": replicas,
				"readyReplicas": ready, "availableReplicas": ready, "updatedReplicas": replicas, "updatedReadyReplicas": ready,
				"updateRevision": "web-7645bb6689", "currentRevision": "web-7645bb6689"}
		}
	}
	links := []chain.LinkID{chain.LinkStored, chain.LinkPods, chain.LinkNodeAssignment, chain.LinkContainers, chain.LinkReady, chain.LinkServing}
	for _, c := range []struct {
		fixture, capture string
		replicas, ready  int64
		code             int
		link             chain.LinkID
		cause            chain.CauseID
	}{
		{"apps.kruise.io/CloneSet/testdata/healthy.yaml", "healthy", 3, 3, ExitHealthy, "", ""},
		{"apps.kruise.io/CloneSet/testdata/degraded.yaml", "image-not-found", 2, 0, ExitBroken, chain.LinkContainers, "ImageNotFound"},
	} {
		file, name := catalogueObject(t, c.fixture)
		in, pods := overPods(t, file, c.capture, over(c.replicas, c.ready))
		r := runWith(t, nil, "clone/"+name, "-f", in, "-o", "json")
		var rep chain.Report
		decodeJSON(t, r.stdout, &rep)
		if r.code != c.code || rep.Kind != chain.KindCloneSet || !slices.Equal(linkIDs(&rep), links) ||
			rep.Verdict.Link != c.link || rep.Verdict.Cause != c.cause || int64(pods) != c.replicas {
			t.Errorf("clone/%s over %d pods of %s: exit %d, %s links %v, verdict %+v; want exit %d, a CloneSet's chain, verdict at %q %s\n%s",
				name, pods, c.capture, r.code, rep.Kind, linkIDs(&rep), rep.Verdict, c.code, c.link, c.cause, r.stderr)
		}
		if c.capture != "image-not-found" {
			continue
		}
		// One of its pods named: the CloneSet is walked, from it.
		_, pod := capturedObject(t, c.capture, "Pod", nil)
		r = runWith(t, nil, "pod/"+pod.GetName(), "-f", in, "-o", "json")
		decodeJSON(t, r.stdout, &rep)
		if r.code != ExitBroken || rep.Kind != chain.KindCloneSet || rep.Name != name || rep.Via != "pod/"+pod.GetName() {
			t.Errorf("pod/%s: exit %d, %s/%s via %q; want its CloneSet %s walked\n%s", pod.GetName(), r.code, rep.Kind, rep.Name, rep.Via, name, r.stderr)
		}
	}
}
