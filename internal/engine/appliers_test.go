package engine

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

type withDynamic struct {
	*fake.Clientset
	dyn dynamic.Interface
}

func (c withDynamic) Dynamic() dynamic.Interface { return c.dyn }

// TestReadOwners: many reports' owners are read with one list per owner
// kind the cluster serves; an owner not found, or of a kind not served,
// is a note on its change.
func TestReadOwners(t *testing.T) {
	api := chain.ArgoApplication
	gvr := schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ApplicationList"})
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": api.APIVersion(), "kind": api.Kind, "metadata": map[string]any{"name": "web", "namespace": "argocd"},
		"spec":   map[string]any{"source": map[string]any{"repoURL": "https://git.example.com/acme/deploy.git"}},
		"status": map[string]any{"sync": map[string]any{"revision": "ea8759964626a583667a2bfd08f334ec2070040a"}},
	}}
	if err := dyn.Tracker().Create(gvr, app, "argocd"); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: api.Group, Version: api.Version, Kind: api.Kind}, meta.RESTScopeNamespace)
	e := New(Request{NewMapper: func() (meta.RESTMapper, error) { return mapper, nil }}, nil)
	report := func(kind, name string) chain.Report {
		return chain.Report{Change: &chain.Change{Kind: chain.ChangeTemplate, Applied: &chain.Applied{Manager: "m", Owner: &chain.Owner{Kind: kind, Name: name}}}}
	}
	l := chain.NewReportList([]chain.Report{report("Application", "web"), report("Application", "gone"), report("Kustomization", "apps"), {}}, 0)
	e.readOwners(context.Background(), &kube.Reader{Client: withDynamic{Clientset: fake.NewClientset(), dyn: dyn}}, l)
	web, gone, ks := l.Items[0].Change.Applied, l.Items[1].Change.Applied, l.Items[2].Change.Applied
	if web.Revision != "ea8759964626a583667a2bfd08f334ec2070040a" || web.Repo != "https://git.example.com/acme/deploy.git" || web.Owner.Namespace != "argocd" {
		t.Errorf("web: %+v", web)
	}
	if !strings.Contains(gone.Note, "not found") || !strings.Contains(ks.Note, "does not serve") {
		t.Errorf("gone %q, kustomization %q", gone.Note, ks.Note)
	}
	if len(dyn.Actions()) != 1 || dyn.Actions()[0].GetVerb() != "list" || l.Requests != 1 {
		t.Errorf("requests %v (%d counted), want one list", dyn.Actions(), l.Requests)
	}
}
