package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/lab/storage"
)

// TestCatalogue checks every scenario: a unique name usable as a namespace,
// a manifest that decodes to objects Apply can create and exactly one
// workload named web of the scenario's kind (and a second step's manifest
// when it has one), and an expected verdict whose cause is in the
// diagnosis catalogue on the link that cause belongs to.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range All() {
		if seen[sc.Name] {
			t.Errorf("%s: duplicate name", sc.Name)
		}
		seen[sc.Name] = true
		if errs := validation.IsDNS1123Label("sc-" + sc.Name); len(errs) > 0 {
			t.Errorf("%s: not a namespace name: %v", sc.Name, errs)
		}
		raw, err := sc.Manifest()
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		objs, err := Decode(raw)
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		// A traffic scenario's workload is a Deployment web, and its
		// object the Service or Ingress web.
		workloadKind, traffic := sc.KindOf(), 0
		if chain.IsTraffic(sc.KindOf()) {
			workloadKind = chain.KindDeployment
		}
		workloads := 0
		for _, o := range objs {
			m, _ := meta.Accessor(o)
			kind := strings.TrimPrefix(fmt.Sprintf("%T", o), "*")
			if podTemplate(o) != nil {
				workloads++
				if m.GetName() != Deployment || !strings.HasSuffix(kind, "."+string(workloadKind)) {
					t.Errorf("%s: %s %q, want %s %q", sc.Name, kind, m.GetName(), workloadKind, Deployment)
				}
			}
			if chain.IsTraffic(sc.KindOf()) && m.GetName() == Deployment && strings.HasSuffix(kind, "."+string(sc.KindOf())) {
				traffic++
			}
			if u, ok := o.(*unstructured.Unstructured); ok && customWorkload(sc, u) {
				workloads++ // a custom resource, whose workloads its operator makes, or a Rollout
			}
			if err := supported(o); err != nil {
				t.Errorf("%s: %v", sc.Name, err)
			}
		}
		if workloads != 1 {
			t.Errorf("%s: %d workloads, want 1", sc.Name, workloads)
		}
		if chain.IsTraffic(sc.KindOf()) && traffic != 1 {
			t.Errorf("%s: %d %s named %s, want 1", sc.Name, traffic, sc.KindOf(), Deployment)
		}
		if then, err := manifests.ReadFile("manifests/" + sc.Name + ".then.yaml"); (err == nil) != (sc.Then != "") {
			t.Errorf("%s: Then %q, but its second step's manifest: %v", sc.Name, sc.Then, err)
		} else if err == nil {
			if objs, err := Decode(then); err != nil || len(objs) != 1 || podTemplate(objs[0]) == nil && !isRollout(objs[0]) {
				t.Errorf("%s: second step: %d objects, %v; want its workload", sc.Name, len(objs), err)
			}
		}
		if sc.Health == chain.Healthy {
			if sc.Link != "" || sc.Cause != "" {
				t.Errorf("%s: healthy with a link or cause", sc.Name)
			}
			continue
		}
		c, ok := decode.Lookup(sc.Cause)
		if !ok {
			t.Errorf("%s: cause %q is not in the catalogue", sc.Name, sc.Cause)
			continue
		}
		// A traffic chain quotes the cause of the workload it selects,
		// a resource's that of a workload it owns, a failed Job's the one
		// its failed pods share, pods the scheduler holds on an unbound
		// claim that claim's.
		claimHolds := sc.Link == chain.LinkNodeAssignment && c.Link == chain.LinkClaims
		if c.Link != sc.Link && sc.Link != chain.LinkWorkloads && sc.Link != chain.LinkOwned && sc.Link != chain.LinkCompletion && !claimHolds {
			t.Errorf("%s: link %q, but cause %s belongs to %q", sc.Name, sc.Link, sc.Cause, c.Link)
		}
	}
	if _, err := Get("no-such-scenario"); err == nil {
		t.Error("Get of an unknown scenario: no error")
	}
}

// TestLocalize checks that a manifest's claims follow its StorageClasses to
// their namespaced names, that other claims keep theirs, and that images
// are replaced with IfNotPresent.
func TestLocalize(t *testing.T) {
	objs := manifestObjects(t, "pvc-provisioning-failed")
	other := "standard"
	objs = append(objs, &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &other}})
	localize(objs, "ns1", map[string]string{"registry.lab.internal/web:v1": "example.invalid/stand-in:1"})
	var got []string
	for _, o := range objs {
		switch o := o.(type) {
		case *storagev1.StorageClass:
			if o.Provisioner != storage.ProvisionerName {
				t.Errorf("StorageClass provisioner %q, want the lab's %q", o.Provisioner, storage.ProvisionerName)
			}
		case *corev1.PersistentVolumeClaim:
			got = append(got, *o.Spec.StorageClassName)
		case *appsv1.Deployment:
			c := o.Spec.Template.Spec.Containers[0]
			got = append(got, c.Image, string(c.ImagePullPolicy))
		}
	}
	want := []string{"ns1-capped", "example.invalid/stand-in:1", "IfNotPresent", "standard"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("localized (-want +got):\n%s", diff)
	}
}

// TestLabOnlyRefusedOnRealKubelets checks that a lab-only scenario is
// refused before anything is created, with the reason.
func TestLabOnlyRefusedOnRealKubelets(t *testing.T) {
	sc, err := Get("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientset()
	err = ApplyWith(context.Background(), c, sc, "ns1", Options{RealKubelet: true})
	var lo *LabOnlyError
	if !errors.As(err, &lo) || !strings.Contains(err.Error(), sc.LabOnly) {
		t.Fatalf("error = %v, want a LabOnlyError with its reason", err)
	}
	if nss, _ := c.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); len(nss.Items) != 0 {
		t.Errorf("namespaces created: %d", len(nss.Items))
	}
	healthy, _ := Get("healthy")
	if healthy.LabOnly != "" {
		t.Errorf("healthy is lab-only: %s", healthy.LabOnly)
	}
}

// TestTrafficScenarioRefusedWithoutController checks that a scenario whose
// statuses only a controller writes is refused, with what to do, on a lab
// whose traffic controller has not accepted its GatewayClass: here an API
// server that answers 404 for it, as a lab started without
// --traffic-controller does.
func TestTrafficScenarioRefusedWithoutController(t *testing.T) {
	sc, err := Get("httproute-backend-missing")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}))
	defer srv.Close()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = Apply(context.Background(), c, sc, "ns1")
	var nt *NoTrafficControllerError
	if !errors.As(err, &nt) || !strings.Contains(err.Error(), "--traffic-controller") {
		t.Fatalf("error = %v, want a NoTrafficControllerError that says --traffic-controller", err)
	}
	if want := []string{"GET /apis/gateway.networking.k8s.io/v1/gatewayclasses/traefik"}; !slices.Equal(asked, want) {
		t.Errorf("requests %v, want only %v (nothing created)", asked, want)
	}
}

// manifestObjects decodes the named scenario's manifest.
func manifestObjects(t *testing.T, name string) []runtime.Object {
	t.Helper()
	sc, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sc.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// customWorkload says u is the scenario's workload web of a custom kind:
// a resource whose operator makes its workloads, or an Argo Rollout.
func customWorkload(sc Scenario, u *unstructured.Unstructured) bool {
	custom := chain.IsResource(sc.KindOf()) || sc.KindOf() == chain.KindRollout
	return custom && u.GetKind() == string(sc.KindOf()) && u.GetName() == Deployment
}

func isRollout(o runtime.Object) bool {
	u, ok := o.(*unstructured.Unstructured)
	return ok && u.GroupVersionKind() == RolloutKind
}
