package kube

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestPermissionsCoverReads: every request the reader makes (each kind's
// read, a whole namespace's, a capture's related objects, the watches of
// --wait and completion's names) is a verb on a resource of Permissions,
// and only get, list and watch.
func TestPermissionsCoverReads(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	objs := append(cluster(),
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}, Spec: appsv1.StatefulSetSpec{Selector: sel,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel.MatchLabels}}}},
		svc("prod", "web", sel.MatchLabels), // served: its NetworkPolicies are read
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}, Spec: appsv1.DaemonSetSpec{Selector: sel}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "claimer", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: "node-1", Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-0"}}}}}},
		// Waiting to be scheduled: its claim is read.
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "waiter", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-waiter"}}}}}})
	c := newGatewayFake(t, objs, gatewayObjects())
	cs := c.Clientset
	r := &Reader{Client: c, Now: func() time.Time { return t0 }}
	actions := func() []clienttesting.Action { return append(cs.Actions(), c.dyn.Actions()...) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, k := range chain.Kinds {
		_, _ = r.Read(ctx, "prod", chain.Ref{Kind: k, Name: "web"})
	}
	_, _ = r.Read(ctx, "prod", chain.Ref{Kind: chain.KindPod, Name: "web-7c9d8f6b5-q8z7r"})
	_, _ = r.Read(ctx, "prod", chain.Ref{Kind: chain.KindRollout, Name: "web"})
	_, _ = r.Read(ctx, "prod", chain.Ref{Kind: chain.KindCloneSet, Name: "web"})
	for _, kind := range []string{"Issuer", "ClusterIssuer"} {
		cert := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt", "kind": kind}}}}
		cert.SetAPIVersion("cert-manager.io/v1")
		cert.SetKind("Certificate")
		_, _ = r.missingRef(ctx, "prod", cert)
	}
	for _, k := range []chain.Kind{chain.KindService, chain.KindIngress, chain.KindGateway, chain.KindHTTPRoute, chain.KindGRPCRoute, chain.KindTLSRoute, chain.KindCloneSet} {
		_, _ = r.Read(ctx, "prod", chain.Ref{Kind: k, Name: "web"})
		r.Watch(ctx, &chain.Snapshot{Kind: k, Namespace: "prod", Name: "web"}, make(chan struct{}, 1))
	}
	sts, err := r.Read(ctx, "prod", chain.Ref{Kind: chain.KindStatefulSet, Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	r.Related(ctx, sts)
	r.Watch(ctx, sts, make(chan struct{}, 1))
	if s, err := r.Read(ctx, "prod", chain.Ref{Kind: chain.KindDeployment, Name: "web"}); err == nil {
		changed := make(chan struct{}, 1)
		r.Watch(ctx, s, changed)
		for _, k := range chain.Kinds {
			r.Watch(ctx, &chain.Snapshot{Kind: k, Namespace: "prod", Name: "web"}, changed)
		}
		r.WatchNamespace(ctx, "prod", "", []chain.Ref{{Kind: chain.KindStatefulSet, Name: "db"}, {Kind: chain.KindCronJob, Name: "nightly"}}, changed)
	}
	_, _, _, _ = r.Many(ctx, "", "")
	_, _ = r.Mirror(ctx, "", "", true, make(chan struct{}, 1))
	for _, kind := range []string{"deployment", "statefulset", "daemonset", "job", "cronjob", "pod", "replicaset", "service", "ingress", "gateway", "httproute", "grpcroute", "tlsroute", "rollout", "cloneset"} {
		_, _ = r.Names(ctx, "prod", kind)
	}
	_, _ = r.OwnerOf(ctx, "prod", "pod", "web-7c9d8f6b5-q8z7r")
	// The GitOps objects that applied a revision that broke.
	for _, api := range chain.Appliers {
		_, _ = r.ReadApplier(ctx, api, "argocd", "web")
	}
	_, _ = r.ReadApplier(ctx, chain.ArgoApplication, "", "web")
	for _, api := range chain.Appliers {
		_, _ = r.ListAppliers(ctx, api, "")
	}
	// The watches open in their goroutines: wait until every watch the
	// table grants was opened, or a few seconds, before looking.
	watches := func() bool {
		opened := map[string]bool{}
		for _, a := range actions() {
			if a.GetVerb() == "watch" {
				opened[a.GetResource().Resource] = true
			}
		}
		for _, p := range Permissions {
			if slices.Contains(p.Verbs, "watch") && !opened[p.Resource] {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(5 * time.Second); !watches() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	allowed := map[string][]string{}
	for _, p := range Permissions {
		allowed[p.Resource] = p.Verbs
	}
	used := map[string]bool{}
	for _, a := range actions() {
		res, verb := a.GetResource().Resource, a.GetVerb()
		used[res+" "+verb] = true
		if !slices.Contains(allowed[res], verb) {
			t.Errorf("%s %s is not in Permissions", verb, res)
		}
		if verb != "get" && verb != "list" && verb != "watch" {
			t.Errorf("%s %s: kubectl-chain only reads", verb, res)
		}
	}
	// And no more: each permission is used by some read.
	for _, p := range Permissions {
		for _, v := range p.Verbs {
			if !used[p.Resource+" "+v] {
				t.Errorf("Permissions grants %s %s, which no read uses", v, p.Resource)
			}
		}
	}
}
