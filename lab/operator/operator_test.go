package operator

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// TestScenariosKnowTheShop: the scenarios name the Shop as the operator
// serves it.
func TestScenariosKnowTheShop(t *testing.T) {
	if scenarios.ShopKind != ShopKind {
		t.Errorf("scenarios.ShopKind %v, operator's %v", scenarios.ShopKind, ShopKind)
	}
}

// TestConditionsAsKstatusReadsThem: the Shop's status reads as kstatus
// should at each step: InProgress while its children come up, Failed
// past its deadline, Current once ready, InProgress again for a new
// generation.
func TestConditionsAsKstatusReadsThem(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	deadline := 20 * time.Second
	kstatus := func(conds []metav1.Condition, gen, observed int64) status.Status {
		t.Helper()
		var list []any
		for i := range conds {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
			if err != nil {
				t.Fatal(err)
			}
			list = append(list, m)
		}
		u := newShop()
		u.SetName("bad")
		u.SetGeneration(gen)
		if err := unstructured.SetNestedSlice(u.Object, list, "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(u.Object, observed, "status", "observedGeneration"); err != nil {
			t.Fatal(err)
		}
		res, err := status.Compute(u)
		if err != nil {
			t.Fatal(err)
		}
		return res.Status
	}
	c := nextConditions(nil, false, "db 0/1 ready", 1, 0, deadline, t0)
	if got := kstatus(c, 1, 1); got != status.InProgressStatus {
		t.Errorf("at creation: %s, want InProgress", got)
	}
	c = nextConditions(c, false, "db 0/1 ready", 1, 1, deadline, t0.Add(10*time.Second))
	if got := kstatus(c, 1, 1); got != status.InProgressStatus {
		t.Errorf("within the deadline: %s, want InProgress", got)
	}
	c = nextConditions(c, false, "db 0/1 ready", 1, 1, deadline, t0.Add(30*time.Second))
	if got := kstatus(c, 1, 1); got != status.FailedStatus {
		t.Errorf("past the deadline: %s, want Failed", got)
	}
	c = nextConditions(c, false, "db 0/1 ready", 1, 1, deadline, t0.Add(40*time.Second))
	if got := kstatus(c, 1, 1); got != status.FailedStatus {
		t.Errorf("still stalled: %s, want Failed", got)
	}
	// A new spec starts its own deadline.
	c = nextConditions(c, false, "db 0/1 ready", 2, 1, deadline, t0.Add(50*time.Second))
	if got := kstatus(c, 2, 2); got != status.InProgressStatus {
		t.Errorf("a new generation: %s, want InProgress", got)
	}
	c = nextConditions(c, true, "db 1/1 ready", 2, 2, deadline, t0.Add(60*time.Second))
	if got := kstatus(c, 2, 2); got != status.CurrentStatus {
		t.Errorf("ready: %s, want Current", got)
	}
}
