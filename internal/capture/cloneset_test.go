package capture_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// withDynamic is a fake clientset with a fake dynamic client beside it,
// as the reader's client is: a CRD's kind is read through the latter.
type withDynamic struct {
	*fake.Clientset
	dyn dynamic.Interface
}

func (c withDynamic) Dynamic() dynamic.Interface { return c.dyn }

// cloneSetOverPods is an OpenKruise CloneSet of 2 replicas whose pods are
// the lab's (capture image-not-found: their image does not exist), with
// the status its controller writes for them, and a literal env value a
// capture must not carry.
const cloneSetOverPods = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: sc-image-not-found, uid: cs-uid, generation: 1, creationTimestamp: "2026-12-03T07:17:40Z"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.lab.internal/web:does-not-exist
        env: [{name: API_TOKEN, value: s3cr3t-token}]
  updateStrategy: {paused: false}
status: {observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 0, availableReplicas: 0, updateRevision: web-856cf68b87}
`

// TestRoundTripCloneSet: a CloneSet read live (the CloneSet through the
// dynamic client, its pods and events through the typed one), written by
// Encode and read back by Load walks to the same report: broken at its
// containers, the image not found. The capture drops the template's env
// value as it drops a Deployment's.
func TestRoundTripCloneSet(t *testing.T) {
	objs, at := fixture(t, filepath.Join("..", "..", "testdata", "captures", "image-not-found.yaml"))
	var typed []runtime.Object
	for _, o := range objs {
		switch v := o.(type) {
		case *corev1.Pod:
			v.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1alpha1", Kind: "CloneSet", Name: "web", UID: "cs-uid", Controller: ptr.To(true)}}
			typed = append(typed, v)
		case *corev1.Event:
			if v.InvolvedObject.Kind == "Pod" {
				typed = append(typed, v)
			}
		}
	}
	js, err := yaml.YAMLToJSON([]byte(cloneSetOverPods))
	if err != nil {
		t.Fatal(err)
	}
	cs := &unstructured.Unstructured{}
	if err := cs.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	row, _ := chain.RowOf(chain.KindCloneSet)
	gvr := schema.GroupVersionResource{Group: row.Group, Version: row.Version, Resource: row.Kind.Plural()}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "CloneSetList"})
	if err := dyn.Tracker().Create(gvr, cs, cs.GetNamespace()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reader := &kube.Reader{Client: withDynamic{Clientset: fake.NewClientset(typed...), dyn: dyn}, Now: func() time.Time { return at }}
	ref := chain.Ref{Kind: chain.KindCloneSet, Name: "web"}
	snap, err := reader.Read(ctx, cs.GetNamespace(), ref)
	if err != nil {
		t.Fatal(err)
	}
	data, err := capture.Encode(snap, reader.Related(ctx, snap), false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t-token") || !strings.Contains(string(data), "# target: cloneset/web") {
		t.Errorf("the capture keeps the env value, or names another target:\n%s", data)
	}
	b, err := capture.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading the capture back: %v\n%s", err, data)
	}
	back, err := b.Read("", chain.Ref{})
	if err != nil {
		t.Fatal(err)
	}
	opts := diagnose.Options{Grace: diagnose.DefaultGrace}
	live, offline := diagnose.Walk(snap, opts), diagnose.Walk(back, opts)
	live.Requests = 0 // offline costs nothing
	if diff := cmp.Diff(live, offline); diff != "" {
		t.Errorf("live and read back differ (-live +read back):\n%s", diff)
	}
	if live.Kind != chain.KindCloneSet || live.Verdict.Health != chain.Broken || live.Verdict.Link != chain.LinkContainers || live.Verdict.Cause != "ImageNotFound" {
		t.Errorf("verdict %s %+v; want a CloneSet broken at containers, ImageNotFound", live.Kind, live.Verdict)
	}
}

// TestCloneSetBehindAService: a file holding a CloneSet, its pods and a
// Service that selects them walks the Service to the CloneSet's chain, as
// it would a Deployment's; and the CloneSet is among the file's workloads.
func TestCloneSetBehindAService(t *testing.T) {
	svc := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: sc-image-not-found}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: web-x7k2p
  namespace: sc-image-not-found
  labels: {app: web}
  ownerReferences: [{apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, name: web, uid: cs-uid, controller: true}]
spec:
  containers: [{name: web, image: registry.lab.internal/web:does-not-exist}]
status: {phase: Pending}
`
	b, err := capture.Load(strings.NewReader(cloneSetOverPods + "---\n" + svc + "---\n" + pod))
	if err != nil {
		t.Fatal(err)
	}
	if w := b.Workloads(""); len(w) != 1 || w[0].Ref != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		t.Errorf("workloads %v, want cloneset/web", w)
	}
	s, err := b.Read("sc-image-not-found", chain.Ref{Kind: chain.KindService, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Templates) != 1 || s.Templates[0].Ref != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		t.Errorf("templates %+v, want cloneset/web's", s.Templates)
	}
	if len(s.Behind) != 1 || s.Behind[0].Ref() != (chain.Ref{Kind: chain.KindCloneSet, Name: "web"}) {
		t.Errorf("svc/web quotes %d chains, want cloneset/web's", len(s.Behind))
	}
}
