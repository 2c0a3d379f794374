package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// forbidden is the error RBAC gives, built as k8s.io/apiserver@v0.37.2
// pkg/endpoints/handlers/responsewriters/errors.go builds it:
// apierrors.NewForbidden(gr, name, "User %q cannot %s resource %q in API group %q in the namespace %q").
func forbidden(verb, group, resource, name string) error {
	return apierrors.NewForbidden(schema.GroupResource{Group: group, Resource: resource}, name,
		fmt.Errorf("User %q cannot %s resource %q in API group %q in the namespace %q",
			"system:serviceaccount:ci:deployer", verb, resource, group, "prod"))
}

func failWith(cs *fake.Clientset, verb, resource string, err error) {
	cs.PrependReactor(verb, resource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, err
	})
}

func TestSnapshotForbiddenList(t *testing.T) {
	tests := []struct {
		resource string
		group    string
		want     func(view) view
	}{
		{"replicasets", "apps", func(v view) view {
			v.ReplicaSets = nil
			v.Gaps = []chain.Gap{{Resource: "replicasets", Verb: "list", Forbidden: true,
				Message: `replicasets.apps is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "replicasets" in API group "apps" in the namespace "prod"`,
				Check:   "kubectl auth can-i list replicasets -n prod"}}
			return v // e2 stays: the pods name their ReplicaSet.
		}},
		{"pods", "", func(v view) view {
			v.Pods = nil
			v.Events = fixtureEvents("e1", "e2")
			v.Gaps = []chain.Gap{{Resource: "pods", Verb: "list", Forbidden: true,
				Message: `pods is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods" in API group "" in the namespace "prod"`,
				Check:   "kubectl auth can-i list pods -n prod"}}
			return v
		}},
		// A namespace's autoscalers refused: a gap no link depends on.
		{"horizontalpodautoscalers", "autoscaling", func(v view) view {
			v.Gaps = []chain.Gap{{Resource: "horizontalpodautoscalers", Verb: "list", Forbidden: true,
				Message: `horizontalpodautoscalers.autoscaling is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "horizontalpodautoscalers" in API group "autoscaling" in the namespace "prod"`,
				Check:   "kubectl auth can-i list horizontalpodautoscalers -n prod"}}
			return v
		}},
		{"events", "", func(v view) view {
			v.Events = nil
			v.Gaps = []chain.Gap{{Resource: "events", Verb: "list", Forbidden: true,
				Message: `events is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "events" in API group "" in the namespace "prod"`,
				Check:   "kubectl auth can-i list events -n prod"}}
			return v
		}},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			cs := fake.NewClientset(cluster()...)
			failWith(cs, "list", tt.resource, forbidden("list", tt.group, tt.resource, ""))
			snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want(healthyView), viewOf(snap)); diff != "" {
				t.Errorf("snapshot (-want +got):\n%s", diff)
			}
			// Nothing else is tried (no events.k8s.io): still 6 requests.
			if got := len(cs.Actions()); got != 6 || snap.Requests != 6 {
				t.Errorf("Requests = %d, fake saw %d, want 6", snap.Requests, got)
			}
		})
	}
}

func TestSnapshotListError(t *testing.T) {
	cause := errors.New("connection reset by peer")
	cs := fake.NewClientset(cluster()...)
	failWith(cs, "list", "pods", cause)
	failWith(cs, "list", "events", cause)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if snap != nil {
		t.Errorf("snapshot = %v, want nil", snap)
	}
	want := "listing pods of deployment prod/web: connection reset by peer"
	if err == nil || err.Error() != want || !errors.Is(err, cause) {
		t.Errorf("err = %v, want %q wrapping the cause", err, want)
	}
}

// TestSnapshotEventsErrorIsGap: events are secondary evidence, so a failed
// events list (a timeout in a huge namespace) leaves a gap, not a failed run.
func TestSnapshotEventsErrorIsGap(t *testing.T) {
	cause := errors.New("the server was unable to return a response in the time allotted")
	cs := fake.NewClientset(cluster()...)
	failWith(cs, "list", "events", cause)
	snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
	if err != nil {
		t.Fatal(err)
	}
	g := snap.Gap(chain.ResourceEvents)
	if g == nil || g.Forbidden || g.Message != cause.Error() || len(snap.Events) != 0 {
		t.Errorf("gap %+v, %d events; want a non-forbidden events gap and no events", g, len(snap.Events))
	}
}

func TestSnapshotDeploymentErrors(t *testing.T) {
	gone := errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	tests := []struct {
		name   string
		get    string
		fail   error
		want   error
		errMsg string
	}{
		{
			name: "not found", get: "nope",
			want: &NotFoundError{Kind: "deployment", Namespace: "prod", Name: "nope"}, errMsg: "deployment prod/nope not found",
		},
		{
			name: "forbidden", get: "web", fail: forbidden("get", "apps", "deployments", "web"),
			want: &ForbiddenError{Kind: "deployment", Namespace: "prod", Name: "web",
				Message: `deployments.apps "web" is forbidden: User "system:serviceaccount:ci:deployer" cannot get resource "deployments" in API group "apps" in the namespace "prod"`,
				Check:   "kubectl auth can-i get deployments/web -n prod"},
			errMsg: `getting deployment prod/web: deployments.apps "web" is forbidden: User "system:serviceaccount:ci:deployer" cannot get resource "deployments" in API group "apps" in the namespace "prod"`,
		},
		{
			name: "other", get: "web", fail: gone,
			errMsg: "getting deployment prod/web: dial tcp 10.0.0.1:6443: connect: connection refused",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(cluster()...)
			if tt.fail != nil {
				failWith(cs, "get", "deployments", tt.fail)
			}
			snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", tt.get)
			if snap != nil || err == nil || err.Error() != tt.errMsg {
				t.Fatalf("Snapshot = %v, %v; want nil, %q", snap, err, tt.errMsg)
			}
			var got error
			var nf *NotFoundError
			var fb *ForbiddenError
			switch {
			case errors.As(err, &nf):
				if !apierrors.IsNotFound(err) {
					t.Error("apierrors.IsNotFound is false")
				}
				nf.Err, got = nil, nf
			case errors.As(err, &fb):
				if !apierrors.IsForbidden(err) {
					t.Error("apierrors.IsForbidden is false")
				}
				fb.Err, got = nil, fb
			default:
				if !errors.Is(err, gone) {
					t.Error("cause not wrapped")
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("typed error (-want +got):\n%s", diff)
			}
			// The GET, and the Services, autoscalers and events' first
			// page sent beside it.
			if n := len(cs.Actions()); n != 4 {
				t.Errorf("fake saw %d requests, want 4", n)
			}
		})
	}
}

func TestSnapshotUnusableSelector(t *testing.T) {
	tests := []struct {
		name string
		sel  *metav1.LabelSelector
		msg  string
	}{
		{"nil", nil, "not listing the namespace: deployment has no spec.selector"},
		{"empty", &metav1.LabelSelector{}, "not listing the namespace: deployment has an empty spec.selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := cluster()
			objs[0] = deployment("prod", "web", tt.sel)
			cs := fake.NewClientset(objs...)
			snap, err := newReader(cs, 0).Snapshot(context.Background(), "prod", "web")
			if err != nil {
				t.Fatal(err)
			}
			want := view{
				Now: t0, Deployment: "web",
				Events: fixtureEvents("e1"),
				Gaps: []chain.Gap{
					{Resource: "replicasets", Verb: "list", Message: tt.msg},
					{Resource: "pods", Verb: "list", Message: tt.msg},
				},
				Requests: 4,
			}
			if diff := cmp.Diff(want, viewOf(snap)); diff != "" {
				t.Errorf("snapshot (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"get deployments", "list events limit=50 continue=", "list horizontalpodautoscalers", "list services"}, requests(cs)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}
