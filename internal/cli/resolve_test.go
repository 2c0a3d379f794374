package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestPodAndReplicaSetTargets: a pod or ReplicaSet named finds its
// Deployment (live and from a capture), whose report says what was named;
// a Deployment named twice is walked once.
func TestPodAndReplicaSetTargets(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	const pod, rs = "web-xqw5mcnvrt-98ldm", "web-xqw5mcnvrt"
	file := filepath.Join("..", "..", "testdata", "snapshots", "image-not-found.yaml")
	for _, args := range [][]string{
		{"pod/" + pod, "-o", "json"},
		{"rs/" + rs, "-o", "json"},
		{"pods", pod, "-o", "json"},
		{"pod/" + pod, "-f", file, "-o", "json"},
	} {
		r := runFixture(t, "image-not-found.yaml", nil, args...)
		var rep chain.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Errorf("%v: not one report (%v): %s %s", args, err, r.stdout, r.stderr)
			continue
		}
		want := "pod/" + pod
		if strings.HasPrefix(args[0], "rs/") {
			want = "replicaset/" + rs
		}
		if r.code != ExitBroken || rep.Name != "web" || rep.Via != want || rep.Verdict.Cause != "ImageNotFound" {
			t.Errorf("%v: exit %d, report of %s via %q, cause %s", args, r.code, rep.Name, rep.Via, rep.Verdict.Cause)
		}
	}
	r := runFixture(t, "image-not-found.yaml", nil, "pod/"+pod, "--color", "never")
	if !strings.HasPrefix(r.stdout, "deployment shop/web (of pod/"+pod+")") || !strings.Contains(r.stdout, "pod "+pod+", the one named, is one of the pods judged here") {
		t.Errorf("text report does not mark the pod named:\n%s", r.stdout)
	}
	r = runFixture(t, "image-not-found.yaml", nil, "pod/"+pod, "deploy/web", "-o", "json")
	var one chain.Report
	if err := json.Unmarshal([]byte(r.stdout), &one); err != nil || one.Name != "web" || len(one.Links) == 0 || one.Via != "" {
		t.Errorf("a Deployment named directly and through its pod: want its one report, not marked (%v):\n%s", err, r.stdout)
	}
}

// TestTargetWithoutDeployment: a pod of a controller kubectl chain does
// not walk, of a StatefulSet that is gone, and a pod that does not exist,
// say so with the not-found
// exit code and what to run instead.
func TestTargetWithoutDeployment(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-not-found.yaml")
	yes := true
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "debug"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-0", OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: &yes}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cron-x", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: "legacy", Controller: &yes}}}},
	} {
		if err := c.Tracker().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ arg, want string }{
		{"pod/db-0", `statefulset "db" not found in namespace "shop"`},
		{"pod/cron-x", `pod shop/cron-x is controlled by ReplicationController legacy, which kubectl chain does not walk, so it has no workload to walk`},
		{"pod/nope", `pod "nope" not found in namespace "shop": pass -n NAMESPACE if it lives elsewhere (kubectl get pods -A --field-selector metadata.name=nope)`},
		{"svc/nope", `service "nope" not found in namespace "shop": pass -n NAMESPACE if it lives elsewhere (kubectl get services -A --field-selector metadata.name=nope)`},
		{"ing/nope", `ingress "nope" not found in namespace "shop": pass -n NAMESPACE if it lives elsewhere (kubectl get ingresses -A --field-selector metadata.name=nope)`},
	} {
		r := runFixture(t, "image-not-found.yaml", c, tt.arg)
		if r.code != ExitNotFound || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want %d and %q", tt.arg, r.code, r.stderr, r.stdout, ExitNotFound, tt.want)
		}
	}
	// A pod no controller owns is walked alone: its own links, no via.
	r := runFixture(t, "image-not-found.yaml", c, "pod/debug", "-o", "json")
	var rep chain.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("pod/debug: %v\n%s", err, r.stdout)
	}
	if rep.Kind != chain.KindPod || rep.Name != "debug" || rep.Via != "" || len(rep.Links) != 5 || rep.Links[1].ID != chain.LinkNodeAssignment {
		t.Errorf("pod/debug walked as %s %s via %q with %d links, want the pod alone with stored, node-assignment, containers, ready, serving:\n%s", rep.Kind, rep.Name, rep.Via, len(rep.Links), r.stdout)
	}
}
