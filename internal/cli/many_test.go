package cli

import (
	"context"
	"encoding/xml"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// twoNamespaces is healthy.yaml in shop and image-not-found.yaml moved to
// staging: two Deployments named web, one healthy, one broken.
func twoNamespaces(t *testing.T) *fake.Clientset {
	t.Helper()
	objs := fixtureObjects(t, "healthy.yaml")
	for _, o := range fixtureObjects(t, "image-not-found.yaml") {
		o.(metav1.Object).SetNamespace("staging")
		if e, ok := o.(*corev1.Event); ok {
			e.InvolvedObject.Namespace = "staging"
		}
		objs = append(objs, o)
	}
	return fake.NewClientset(objs...)
}

func TestAllNamespaces(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := twoNamespaces(t)
	r := runFixture(t, "image-not-found.yaml", c, "-A", "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	if r.code != ExitBroken || l.Health != chain.Broken || len(l.Items) != 2 || l.Kind != "ReportList" {
		t.Fatalf("code %d, health %s, %d items; want %d, broken, 2\n%s", r.code, l.Health, len(l.Items), ExitBroken, r.stdout)
	}
	// One list per kind (five workload kinds, Ingresses, IngressClasses,
	// ReplicaSets, Pods, Services, EndpointSlices, NetworkPolicies,
	// events), whatever the number of workloads.
	if l.Requests != 13 || len(c.Actions()) != 13 {
		t.Errorf("requests %d, actions %d; want 13", l.Requests, len(c.Actions()))
	}
	got := map[string]chain.CauseID{}
	for _, it := range l.Items {
		got[it.Namespace+"/"+it.Name] = it.Verdict.Cause
	}
	if got["shop/web"] != "" || got["staging/web"] != "ImageNotFound" {
		t.Errorf("verdicts %v", got)
	}
}

func TestAllInNamespaceText(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "staging")
	r := runFixture(t, "image-not-found.yaml", twoNamespaces(t), "--all", "--color", "never")
	if r.code != ExitBroken {
		t.Errorf("code %d", r.code)
	}
	// The broken one's full report, then the summary table; nothing of shop.
	if !strings.Contains(r.stdout, "BROKEN at containers") || !strings.Contains(r.stdout, "NAMESPACE  WORKLOAD        HEALTH") || strings.Contains(r.stdout, "\nshop ") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

func TestSelectorMatchesNothing(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	r := runFixture(t, "healthy.yaml", nil, "-l", "app=nothing")
	if r.code != ExitNotFound || !strings.Contains(r.stderr, "no Deployments, StatefulSets, DaemonSets, Jobs, CronJobs, Argo Rollouts, Ingresses, Gateways or routes in namespace shop matching app=nothing") {
		t.Errorf("code %d, stderr %q", r.code, r.stderr)
	}
}

func TestNamesAndSelectorConflict(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	r := runFixture(t, "healthy.yaml", nil, "deploy/web", "--all")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "not both") {
		t.Errorf("code %d, stderr %q", r.code, r.stderr)
	}
}

func TestJUnitAndMarkdown(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	r := runFixture(t, "image-not-found.yaml", twoNamespaces(t), "-A", "-o", "junit")
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &suite); err != nil {
		t.Fatalf("not XML: %v\n%s", err, r.stdout)
	}
	if suite.Tests != 2 || suite.Failures != 1 || suite.Cases[1].Failure == nil || !strings.Contains(suite.Cases[1].Failure.Message, "ImageNotFound") {
		t.Errorf("suite %+v", suite)
	}
	r = runFixture(t, "image-not-found.yaml", twoNamespaces(t), "-A", "-o", "markdown")
	for _, want := range []string{"### kubectl chain: broken", "| `deployment staging/web` | broken | containers | ImageNotFound |", "**Next step:**"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("markdown lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestGitHubAnnotations(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	t.Setenv("GITHUB_ACTIONS", "true")
	r := runFixture(t, "image-not-found.yaml", twoNamespaces(t), "-A", "--color", "never")
	if !strings.Contains(r.stdout, "::error title=deployment staging/web::broken at containers:") || strings.Contains(r.stdout, "title=deployment shop/web") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

// TestGitHubAnnotationsOneTarget: a gate on one Deployment (the README's
// own --wait example) prints its ::error line too, whichever way the
// report was read.
func TestGitHubAnnotationsOneTarget(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	t.Setenv("GITHUB_ACTIONS", "true")
	const want = "::error title=deployment shop/web::broken at containers:"
	for _, args := range [][]string{
		{"deploy/web", "--color", "never"},
		{"deploy/web", "--wait", "--timeout", "20s", "--color", "never"},
		{"-f", filepath.Join("..", "..", "testdata", "snapshots", "image-not-found.yaml"), "--color", "never"},
	} {
		r := runFixture(t, "image-not-found.yaml", nil, args...)
		if r.code != ExitBroken || strings.Count(r.stdout, want) != 1 {
			t.Errorf("%v: exit %d, want %d and one %q line:\n%s", args, r.code, ExitBroken, want, r.stdout)
		}
	}
	r := runFixture(t, "image-not-found.yaml", nil, "deploy/web", "-o", "json")
	if strings.Contains(r.stdout, "::error") {
		t.Errorf("annotations in JSON output:\n%s", r.stdout)
	}
}

var _ runtime.Object = (*corev1.Event)(nil)

// TestManyWaitFollowsWatches: --all --wait in one namespace follows the
// namespace with watches: nothing is ever listed again (no poll at 2 s, no
// re-list on a change), and the change (the Deployment is paused), which
// the watch brings, ends the wait with its verdict.
func TestManyWaitFollowsWatches(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-pulling.yaml")
	lists := 0
	c.PrependReactor("list", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists++
		return false, nil, nil
	})
	watched := map[string]bool{}
	c.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		watched[a.GetResource().Resource] = true
		return false, nil, nil
	})
	go pauseAfter(t, c, 2500*time.Millisecond)
	r := runFixture(t, "image-pulling.yaml", c, "--all", "--wait", "--timeout", "20s", "-o", "json")
	if r.code != ExitBroken {
		t.Errorf("code %d, want %d; stderr %q", r.code, ExitBroken, r.stderr)
	}
	if lists != 1 {
		t.Errorf("deployments listed %d times, want 1: the first read only", lists)
	}
	for _, res := range []string{"deployments", "replicasets", "pods", "events"} {
		if !watched[res] {
			t.Errorf("%s not watched (watched: %v)", res, watched)
		}
	}
}

// TestManyWaitAcrossNamespacesWatches: -A --wait follows the whole
// cluster with one watch per resource, opened where the first read left
// off: nothing is listed twice, and the change ends the wait.
func TestManyWaitAcrossNamespacesWatches(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-pulling.yaml")
	lists := map[string]int{}
	c.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lists[a.GetResource().Resource]++
		return false, nil, nil
	})
	watched := map[string]bool{}
	c.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		watched[a.GetResource().Resource] = true
		return false, nil, nil
	})
	go pauseAfter(t, c, 300*time.Millisecond)
	r := runFixture(t, "image-pulling.yaml", c, "-A", "--wait", "--timeout", "20s", "-o", "json")
	if r.code != ExitBroken {
		t.Errorf("code %d, want %d; stderr %q", r.code, ExitBroken, r.stderr)
	}
	for _, res := range []string{"deployments", "replicasets", "pods", "events"} {
		if lists[res] != 1 || !watched[res] {
			t.Errorf("%s listed %d times, watched %v; want once, and watched", res, lists[res], watched[res])
		}
	}
}

// TestAllJudgesTraffic: --all and -A judge the Ingresses (and Gateways and
// routes) of the scope, and the Services no workload's serving link
// covers; a Service that selects a workload's pods is judged on that
// workload's serving link only, and -l keeps the traffic objects it
// matches.
func TestAllJudgesTraffic(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	objs := fixtureObjects(t, "healthy.yaml") // deployment/web, pods app=web
	objs = append(objs,
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"team": "a"}},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy", Labels: map[string]string{"team": "a"}},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "legacy-api"}, Ports: []corev1.ServicePort{{Port: 80}}}},
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "front", Labels: map[string]string{"team": "b"}},
			Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("nginx"), DefaultBackend: &networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "gone", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.7"}}}}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}})
	verdicts := func(args ...string) map[string]chain.CauseID {
		t.Helper()
		r := runFixture(t, "healthy.yaml", fake.NewClientset(objs...), append(args, "-o", "json")...)
		var l chain.ReportList
		decodeJSON(t, r.stdout, &l)
		got := map[string]chain.CauseID{}
		for _, it := range l.Items {
			got[string(it.Kind)+"/"+it.Name] = it.Verdict.Cause
		}
		return got
	}
	// Service web (no EndpointSlice in the fixture) is judged on
	// deployment/web's serving link, not as a row of its own.
	want := map[string]chain.CauseID{"Deployment/web": "EndpointsMissing", "Service/legacy": "ServiceSelectsNoPods", "Ingress/front": "IngressBackendNotFound"}
	if got := verdicts("--all"); !maps.Equal(got, want) {
		t.Errorf("--all judged %v, want %v", got, want)
	}
	if got := verdicts("-A"); !maps.Equal(got, want) {
		t.Errorf("-A judged %v, want %v", got, want)
	}
	if got, want := verdicts("-l", "team=b"), map[string]chain.CauseID{"Ingress/front": "IngressBackendNotFound"}; !maps.Equal(got, want) {
		t.Errorf("-l team=b judged %v, want %v", got, want)
	}
}

// TestManyWaitEndsAtTheFirstTerminalCause: a wait over several workloads
// ends as soon as one is terminally broken (web's image does not exist),
// though another (api, whose generation the controller has not observed)
// is still progressing: the gate's verdict cannot change, and waiting
// would only hold it to its timeout.
func TestManyWaitEndsAtTheFirstTerminalCause(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	c := fakeClient(t, "image-not-found.yaml")
	web, err := c.AppsV1().Deployments("shop").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	api := web.DeepCopy()
	api.Name, api.ResourceVersion, api.UID = "api", "", ""
	api.Generation, api.Status = 3, appsv1.DeploymentStatus{ObservedGeneration: 2}
	if err := c.Tracker().Add(api); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := runFixture(t, "image-not-found.yaml", c, "--all", "--wait", "--timeout", "20s", "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	health := map[string]chain.Health{}
	for _, it := range l.Items {
		health[it.Name] = it.Verdict.Health
	}
	if r.code != ExitBroken || health["web"] != chain.Broken || health["api"] != chain.Progressing {
		t.Errorf("exit %d, verdicts %v; want %d, web broken and api still progressing\n%s", r.code, health, ExitBroken, r.stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s: the wait must end at the first terminal cause", d)
	}
}

// TestManyWaitPrintsEachChangeOnce: a release's Deployment and Service of
// one name each get one progress line, named with its kind, and another
// only when it changes, not one a second (they shared one key).
func TestManyWaitPrintsEachChangeOnce(t *testing.T) {
	kubeconfig(t, "https://127.0.0.1:1", "shop")
	file := filepath.Join(t.TempDir(), "release.yaml")
	if err := os.WriteFile(file, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := fakeClient(t, "image-pulling.yaml")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if err := c.Tracker().Add(svc); err != nil {
		t.Fatal(err)
	}
	r := runFixture(t, "image-pulling.yaml", c, "--manifests", file, "--wait", "--timeout", "3500ms", "-o", "json")
	if r.code != ExitProgressing {
		t.Errorf("exit %d, want %d\n%s", r.code, ExitProgressing, r.stderr)
	}
	for _, name := range []string{"shop deployment/web progressing", "shop service/web progressing"} {
		if n := strings.Count(r.stderr, name); n != 1 {
			t.Errorf("%q printed %d times in 3.5 s, want once:\n%s", name, n, r.stderr)
		}
	}
}
