package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// quietNamespace is where copyQuiet puts a copy of a busy namespace's
// Deployment: the same objects and their events, and no other events.
const quietNamespace = "fill-quiet"

// copyQuiet copies Deployment name of namespace from (its ReplicaSets,
// pods, statuses, the Services that select it and the events about them)
// into quietNamespace: a frozen
// lab has no controller, so the copy is what the fill wrote. It returns
// the function that deletes the copy (the namespace stays: a frozen lab
// has no namespace controller to finish deleting it), so a cluster reused
// (KUBECTL_CHAIN_BIG_LAB) holds only the fill's broken Deployments.
func copyQuiet(ctx context.Context, tb testing.TB, c *bigCluster, from, name string) (drop func()) {
	tb.Helper()
	cl, to := c.client, quietNamespace
	drop = func() {
		all, now := metav1.ListOptions{}, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
		for _, err := range []error{
			cl.AppsV1().Deployments(to).DeleteCollection(ctx, now, all),
			cl.AppsV1().ReplicaSets(to).DeleteCollection(ctx, now, all),
			cl.CoreV1().Pods(to).DeleteCollection(ctx, now, all),
			cl.CoreV1().Events(to).DeleteCollection(ctx, now, all),
			deleteServices(ctx, cl, to),
		} {
			if err != nil {
				tb.Errorf("deleting the quiet copy: %v", err)
			}
		}
	}
	drop() // what a run that failed left
	must := func(err error) {
		tb.Helper()
		if err != nil && !apierrors.IsAlreadyExists(err) {
			tb.Fatal(err)
		}
	}
	_, err := cl.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: to}}, metav1.CreateOptions{})
	must(err)
	// Pods need the default ServiceAccount, which the lab's controller
	// manager writes (a frozen lab runs that controller).
	for _, err := cl.CoreV1().ServiceAccounts(to).Get(ctx, "default", metav1.GetOptions{}); err != nil; _, err = cl.CoreV1().ServiceAccounts(to).Get(ctx, "default", metav1.GetOptions{}) {
		if ctx.Err() != nil {
			tb.Fatalf("namespace %s has no default ServiceAccount: %v", to, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	uids := map[types.UID]types.UID{}
	fresh := func(m *metav1.ObjectMeta) types.UID {
		old := m.UID
		m.Namespace, m.UID, m.ResourceVersion, m.ManagedFields = to, "", "", nil
		for i := range m.OwnerReferences {
			m.OwnerReferences[i].UID = uids[m.OwnerReferences[i].UID]
		}
		return old
	}
	d, err := cl.AppsV1().Deployments(from).Get(ctx, name, metav1.GetOptions{})
	must(err)
	old := fresh(&d.ObjectMeta)
	nd, err := cl.AppsV1().Deployments(to).Create(ctx, d, metav1.CreateOptions{})
	must(err)
	uids[old] = nd.UID
	nd.Status = d.Status
	_, err = cl.AppsV1().Deployments(to).UpdateStatus(ctx, nd, metav1.UpdateOptions{})
	must(err)
	sel := labels.SelectorFromSet(d.Spec.Selector.MatchLabels).String()
	// The Services that select its pods come along, so that both walks
	// read the same links (the serving link's EndpointSlices and
	// NetworkPolicies): the namespaces differ, the workload does not.
	svcs, err := cl.CoreV1().Services(from).List(ctx, metav1.ListOptions{})
	must(err)
	for _, svc := range svcs.Items {
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
			continue
		}
		fresh(&svc.ObjectMeta)
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		_, err := cl.CoreV1().Services(to).Create(ctx, &svc, metav1.CreateOptions{})
		must(err)
	}
	rss, err := cl.AppsV1().ReplicaSets(from).List(ctx, metav1.ListOptions{LabelSelector: sel})
	must(err)
	for _, rs := range rss.Items {
		old := fresh(&rs.ObjectMeta)
		n, err := cl.AppsV1().ReplicaSets(to).Create(ctx, &rs, metav1.CreateOptions{})
		must(err)
		uids[old] = n.UID
		n.Status = rs.Status
		_, err = cl.AppsV1().ReplicaSets(to).UpdateStatus(ctx, n, metav1.UpdateOptions{})
		must(err)
	}
	pods, err := cl.CoreV1().Pods(from).List(ctx, metav1.ListOptions{LabelSelector: sel})
	must(err)
	for _, p := range pods.Items {
		old := fresh(&p.ObjectMeta)
		n, err := cl.CoreV1().Pods(to).Create(ctx, &p, metav1.CreateOptions{})
		must(err)
		uids[old] = n.UID
		n.Status = p.Status
		_, err = cl.CoreV1().Pods(to).UpdateStatus(ctx, n, metav1.UpdateOptions{})
		must(err)
	}
	evs, err := cl.CoreV1().Events(from).List(ctx, metav1.ListOptions{})
	must(err)
	for _, e := range evs.Items {
		nu, ok := uids[e.InvolvedObject.UID]
		if !ok {
			continue
		}
		fresh(&e.ObjectMeta)
		e.InvolvedObject.Namespace, e.InvolvedObject.UID, e.InvolvedObject.ResourceVersion = to, nu, ""
		_, err := cl.CoreV1().Events(to).Create(ctx, &e, metav1.CreateOptions{})
		must(err)
	}
	return drop
}

// deleteServices deletes the namespace's Services, one by one (the API
// has no collection delete for them).
func deleteServices(ctx context.Context, cl kubernetes.Interface, ns string) error {
	l, err := cl.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, svc := range l.Items {
		if err := cl.CoreV1().Services(ns).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// median runs measure n times and returns the run of median wall time.
func median(n int, measure func() cost) cost {
	runs := make([]cost, n)
	for i := range runs {
		runs[i] = measure()
	}
	slices.SortFunc(runs, func(a, b cost) int { return int(a.wall - b.wall) })
	return runs[n/2]
}

// mcpSizes are what the MCP tools' answers cost an assistant on the big
// cluster, through a real client (the MCP Inspector's CLI): each result as
// compact JSON, its structured content and its text for the model, and
// tokens approximated as bytes/4 (no tokenizer at hand).
type mcpSizes struct {
	firstPage, diagnosis int // bytes
	broken               int
}

func measureMCP(ctx context.Context, tb testing.TB, c *bigCluster, ns, name string) mcpSizes {
	tb.Helper()
	compact := func(args ...string) []byte {
		var raw json.RawMessage
		inspectAt(tb, ctx, c.kubeconfig, &raw, append([]string{"--method", "tools/call"}, args...)...)
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			tb.Fatal(err)
		}
		return b.Bytes()
	}
	var s mcpSizes
	page := compact("--tool-name", "list_unhealthy", "--tool-arg", "allNamespaces=true")
	var list struct {
		StructuredContent struct {
			Items []struct {
				Verdict struct {
					Health string `json:"health"`
				} `json:"verdict"`
			} `json:"items"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(page, &list); err != nil {
		tb.Fatal(err)
	}
	for _, it := range list.StructuredContent.Items {
		if it.Verdict.Health == "broken" {
			s.broken++
		}
	}
	s.firstPage = len(page)
	s.diagnosis = len(compact("--tool-name", "diagnose", "--tool-arg", "target=deploy/"+name, "--tool-arg", "namespace="+ns))
	return s
}

// floorTable prints the floor's figures side by side: the verdicts
// against the API server's own answers, in the same run.
func floorTable(all, rawPods, rawEvents, getPods, busy, quiet, scan cost, srv serveFigures, m mcpSizes) string {
	var t strings.Builder
	raw := rawPods.wall + rawEvents.wall
	fmt.Fprintf(&t, "\n| the floor, one run | figure | target |\n|---|---|---|\n")
	fmt.Fprintf(&t, "| `chain -A --all` against `get --raw` of all pods (%.2f s) and all events (%.2f s) | %.2f s, %.2f times the raw reads; %.0f MB peak RSS | 1.0 times; 250 MB |\n",
		rawPods.wall.Seconds(), rawEvents.wall.Seconds(), all.wall.Seconds(), all.wall.Seconds()/raw.Seconds(), all.rssMB)
	fmt.Fprintf(&t, "| `kubectl get pods -A -o json`, for scale | %.2f s, %.0f MB peak RSS | |\n", getPods.wall.Seconds(), getPods.rssMB)
	fmt.Fprintf(&t, "| `deploy/big-broken` in its namespace of 20,000 events, and a copy alone in a quiet one (median of 5) | %.2f s (%d requests) and %.2f s (%d): %.2f times | 1.5 times |\n",
		busy.wall.Seconds(), busy.total(), quiet.wall.Seconds(), quiet.total(), busy.wall.Seconds()/quiet.wall.Seconds())
	fmt.Fprintf(&t, "| `kubectl get events --field-selector` of one object in that namespace (median of 5): the API server's scan | %.2f s | |\n", scan.wall.Seconds())
	fmt.Fprintf(&t, "| `serve -A`: first judgement; steady RSS; an idle minute; a write to its metric | %.1f s; %.0f MB; %.1f%% of a core; median %.2f s, max %.2f s | 5 s; 250 MB; near zero; 1 s |\n",
		srv.ready.Seconds(), srv.rssMB, srv.idlePercent(), srv.medianLatency().Seconds(), srv.maxLatency().Seconds())
	fmt.Fprintf(&t, "| MCP `list_unhealthy` over all namespaces, first page (%d broken) | %d bytes, about %d tokens | 8,000 tokens |\n", m.broken, m.firstPage, (m.firstPage+3)/4)
	fmt.Fprintf(&t, "| MCP `diagnose` of `deploy/big-broken` | %d bytes, about %d tokens | 2,000 tokens |\n", m.diagnosis, (m.diagnosis+3)/4)
	return t.String()
}
