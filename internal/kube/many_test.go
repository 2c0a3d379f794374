package kube

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestManyOneListPerKind: reading a namespace costs one list per kind
// (the five workload kinds, Ingresses and IngressClasses, then
// ReplicaSets, Pods, Services, EndpointSlices, NetworkPolicies and events;
// revisions, claims and nodes only when a StatefulSet or DaemonSet needs
// them; the Gateway API's kinds with a client that reads them),
// however many workloads it holds, and keeps only that namespace.
func TestManyOneListPerKind(t *testing.T) {
	cs := fake.NewClientset(cluster()...)
	b, gaps, n, err := newReader(cs, 0).Many(context.Background(), "prod", "")
	if err != nil {
		t.Fatal(err)
	}
	if n != 13 || len(cs.Actions()) != 13 || len(gaps) != 0 {
		t.Errorf("requests %d, actions %d, gaps %v; want 13, 13, none", n, len(cs.Actions()), gaps)
	}
	if len(b.Deployments) != 2 || len(b.Packed) != 3 {
		t.Errorf("%d deployments, %d pods; want 2 and 3 (prod only)", len(b.Deployments), len(b.Packed))
	}
	s, err := b.Snapshot("prod", "web")
	if err != nil || len(s.Pods) != 2 {
		t.Errorf("web: %v, %d pods", err, len(s.Pods))
	}
}

func TestManyForbiddenPodsIsGap(t *testing.T) {
	cs := fake.NewClientset(cluster()...)
	failWith(cs, "list", "pods", forbidden("list", "", "pods", ""))
	_, gaps, _, err := newReader(cs, 0).Many(context.Background(), "", "app=web")
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != 1 || gaps[0].Resource != chain.ResourcePods || gaps[0].Check != "kubectl auth can-i list pods --all-namespaces" {
		t.Errorf("gaps %+v", gaps)
	}
}
