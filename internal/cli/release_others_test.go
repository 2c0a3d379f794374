package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// dynamicFake is a fake clientset with a fake dynamic client beside it, as
// kube.NewClient's is: resource kinds are read through the latter.
type dynamicFake struct {
	*fake.Clientset
	dyn dynamic.Interface
}

func (d dynamicFake) Dynamic() dynamic.Interface { return d.dyn }

// listedKinds adds to kinds the list kinds of what a namespace's read
// lists through the dynamic client (the Gateway API's kinds, every
// kind of the kinds table a CRD serves), which the fake dynamic client must know to answer.
func listedKinds(kinds map[schema.GroupVersionResource]string) {
	for _, k := range []chain.Kind{chain.KindGateway, chain.KindHTTPRoute, chain.KindGRPCRoute, chain.KindTLSRoute, "GatewayClass"} {
		kinds[chain.GatewayResource(k)] = string(k) + "List"
	}
	for _, row := range chain.KindTable() {
		if row.CRD {
			api := row.API()
			kinds[schema.GroupVersionResource{Group: api.Group, Version: api.Version, Resource: api.Resource}] = string(row.Kind) + "List"
		}
	}
}

// readyObject is an object of kind in ns (cluster-scoped when "") whose
// Ready condition is True, as cert-manager writes it.
func readyObject(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True", "reason": "Ready", "message": "Certificate is up to date and has not expired"},
	}}}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

const releaseOthersYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.lab.internal/shop/web:1.5.0
---
apiVersion: v1
kind: Secret
metadata:
  name: db-creds
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web-tls
spec:
  secretName: web-tls
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: letsencrypt
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
`

// TestReleaseOtherKinds: --manifests judges the release's objects of every
// other kind the cluster serves by their status (a Certificate, a
// cluster-scoped ClusterIssuer), and lists what it cannot judge, with why:
// a Secret (never read), a kind the cluster does not serve. --unjudged fail
// fails a gate that would pass on them.
func TestReleaseOtherKinds(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	dir := t.TempDir()
	file := filepath.Join(dir, "release.yaml")
	if err := os.WriteFile(file, []byte(releaseOthersYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	certs := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	issuers := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "clusterissuers"}
	kinds := map[schema.GroupVersionResource]string{certs: "CertificateList", issuers: "ClusterIssuerList"}
	listedKinds(kinds) // the namespace's read lists them too
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	if err := dyn.Tracker().Create(certs, readyObject("cert-manager.io/v1", "Certificate", "shop", "web-tls"), "shop"); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Tracker().Create(issuers, readyObject("cert-manager.io/v1", "ClusterIssuer", "", "letsencrypt"), ""); err != nil {
		t.Fatal(err)
	}
	c := dynamicFake{Clientset: fakeClient(t, "image-not-found.yaml"), dyn: dyn}
	r := runWith(t, c, "--manifests", file, "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	got := map[string]string{}
	for _, it := range l.Items {
		got[string(it.Kind)+"/"+it.Namespace+"/"+it.Name] = string(it.Verdict.Health)
	}
	want := map[string]string{"Deployment/shop/web": "broken", "Certificate/shop/web-tls": "healthy", "ClusterIssuer//letsencrypt": "healthy"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if r.code != ExitBroken {
		t.Errorf("exit %d, want %d", r.code, ExitBroken)
	}
	for _, s := range []string{"not judged (2", "secret/db-creds: not read (kubectl chain never reads Secrets)", "rollout/web: this cluster does not serve Rollout in argoproj.io/v1alpha1"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q, want %q", r.stderr, s)
		}
	}

	// Without the broken Deployment the gate passes, unless --unjudged
	// fail.
	passing := filepath.Join(dir, "passing.yaml")
	if err := os.WriteFile(passing, []byte(releaseOthersYAML[strings.Index(releaseOthersYAML, "---\n")+4:]), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runWith(t, c, "--manifests", passing); r.code != ExitHealthy {
		t.Errorf("exit %d, want %d\n%s\n%s", r.code, ExitHealthy, r.stdout, r.stderr)
	}
	if r := runWith(t, c, "--manifests", passing, "--unjudged", "fail"); r.code != ExitUnknown || !strings.Contains(r.stderr, "could not be judged") {
		t.Errorf("--unjudged fail: exit %d, want %d\n%s", r.code, ExitUnknown, r.stderr)
	}
	if r := runWith(t, c, "--manifests", passing, "--unjudged", "maybe"); r.code != ExitUsage {
		t.Errorf("--unjudged maybe: exit %d, want %d", r.code, ExitUsage)
	}
}

// TestRBACForRelease: rbac --manifests adds get and watch on the release's
// objects of other kinds, namespaced ones to the Role and cluster-scoped
// ones to the ClusterRole, never on Secrets, and not on a kind the cluster
// does not serve.
func TestRBACForRelease(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	file := filepath.Join(t.TempDir(), "release.yaml")
	if err := os.WriteFile(file, []byte(releaseOthersYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, nil, "rbac", "--user", "alice", "-n", "shop", "--manifests", file)
	if r.code != ExitHealthy {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	role, clusterRole, _ := strings.Cut(r.stdout, "kind: ClusterRole\n")
	for _, tt := range []struct {
		in, want string
	}{
		{role, "- cert-manager.io\n  resources:\n  - certificates\n  verbs:\n  - get\n  - watch"},
		{clusterRole, "- cert-manager.io\n  resources:\n  - clusterissuers\n  verbs:\n  - get\n  - watch"},
	} {
		if !strings.Contains(tt.in, tt.want) {
			t.Errorf("want %q in:\n%s", tt.want, tt.in)
		}
	}
	for _, never := range []string{"secrets", "create", "update", "delete"} {
		if strings.Contains(r.stdout, never) {
			t.Errorf("%q granted:\n%s", never, r.stdout)
		}
	}
	// Argo Rollouts' rollouts are among every reader's reads (a
	// namespace's read lists them where served); the release's Rollout,
	// which this cluster does not serve, adds no rule of its own.
	if n := strings.Count(r.stdout, "- rollouts\n"); n != 1 {
		t.Errorf("rollouts granted %d times, want once (the base read):\n%s", n, r.stdout)
	}
}

// TestReleaseWalksWhatItsObjectsOwn: a release that holds only an
// operator's custom resource (here a Certificate standing for one) is
// judged by what the operator made from it, which no release lists: its
// Deployment that cannot pull fails the gate with ImageNotFound. When the
// release holds the Deployment too, it is judged on its own and the
// custom resource's owned link only notes it.
func TestReleaseWalksWhatItsObjectsOwn(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	dir := t.TempDir()
	certs := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
	kinds := map[schema.GroupVersionResource]string{certs: "CertificateList"}
	listedKinds(kinds)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	owner := readyObject("cert-manager.io/v1", "Certificate", "shop", "web-tls")
	owner.SetUID("owner-uid")
	if err := dyn.Tracker().Create(certs, owner, "shop"); err != nil {
		t.Fatal(err)
	}
	c := fakeClient(t, "image-not-found.yaml")
	web, err := c.AppsV1().Deployments("shop").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	web.OwnerReferences = []metav1.OwnerReference{{APIVersion: "cert-manager.io/v1", Kind: "Certificate", Name: "web-tls", UID: "owner-uid"}}
	if _, err := c.AppsV1().Deployments("shop").Update(context.Background(), web, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	client := dynamicFake{Clientset: c, dyn: dyn}
	certOnly := strings.SplitN(releaseOthersYAML, "---\n", 4)[2]
	for _, tt := range []struct {
		name, yaml, link string
	}{
		{"the custom resource alone", certOnly, "owned"},
		{"with the Deployment", releaseOthersYAML[:strings.Index(releaseOthersYAML, "---\n")+4] + certOnly, "containers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runWith(t, client, "--manifests", file, "-o", "json")
			var l chain.ReportList
			decodeJSON(t, r.stdout, &l)
			if r.code != ExitBroken {
				t.Errorf("exit %d, want %d\n%s", r.code, ExitBroken, r.stderr)
			}
			found := false
			for _, it := range l.Items {
				if it.Verdict.Cause == "ImageNotFound" && string(it.Verdict.Link) == tt.link {
					found = true
				}
				if it.Kind == "Certificate" && tt.link == "containers" {
					if len(it.Links) < 3 || it.Links[2].Status != chain.StatusOK || !strings.Contains(strings.Join(it.Links[2].Notes, " "), "deployment/web") {
						t.Errorf("the Certificate's owned link should note deployment/web, judged on its own: %+v", it.Links)
					}
				}
			}
			if !found {
				t.Errorf("no verdict ImageNotFound at %s:\n%s", tt.link, r.stdout)
			}
		})
	}
}
