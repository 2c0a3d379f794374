package fill

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Written counts what a fill wrote.
type Written struct {
	Nodes, Namespaces, Deployments, ReplicaSets, Pods, Events int
	Took                                                      time.Duration
}

func (w Written) String() string {
	return fmt.Sprintf("%d nodes, %d namespaces, %d Deployments, %d ReplicaSets, %d pods, %d events in %.1fs",
		w.Nodes, w.Namespaces, w.Deployments, w.ReplicaSets, w.Pods, w.Events, w.Took.Seconds())
}

// workers is how many writes are in flight: enough to keep a 2-core API
// server busy.
const workers = 12

// Write writes the plan into the cluster of c, which must be a frozen lab
// (or any cluster whose workload controllers, node lifecycle controller and
// garbage collectors are off): nothing a running controller would rewrite
// is checked for. now is the fill's time, from which ages count back.
func Write(ctx context.Context, c kubernetes.Interface, p Plan, templates map[string]*Template, now time.Time, progress io.Writer) (Written, error) {
	start := time.Now()
	var w Written
	for _, t := range Templates() {
		if templates[t] == nil {
			return w, fmt.Errorf("template %s is not loaded", t)
		}
	}
	rng := rand.New(rand.NewPCG(p.Spec.Seed, 0x6576656e7473))
	if err := writeNodes(ctx, c, p.Nodes, templates[Healthy].Node, now); err != nil {
		return w, err
	}
	w.Nodes = len(p.Nodes)
	if err := writeNamespaces(ctx, c, p.Namespaces); err != nil {
		return w, err
	}
	w.Namespaces = len(p.Namespaces)
	fmt.Fprintf(progress, "fill: %d nodes and %d namespaces\n", w.Nodes, w.Namespaces)

	// Which healthy Deployments still have their events: as many as the
	// budget allows after the broken ones', the rest being older than
	// the API server's event TTL (an hour).
	budget := p.Spec.Events
	recent := make([]bool, len(p.Workloads))
	for i, wl := range p.Workloads {
		if wl.Broken {
			recent[i] = true
			budget -= eventsOf(templates[wl.Template], wl.Replicas)
		}
	}
	for _, i := range rng.Perm(len(p.Workloads)) {
		wl := p.Workloads[i]
		if n := eventsOf(templates[wl.Template], wl.Replicas); !wl.Broken && n <= budget {
			recent[i] = true
			budget -= n
		}
	}

	var (
		pods, events atomic.Int64
		queue        = make(chan int)
		errs         = make(chan error, workers)
		wg           sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Go(func() {
			for i := range queue {
				wl := p.Workloads[i]
				age := wl.Age
				if recent[i] && !wl.Broken {
					age = time.Duration(int64(i)*7919%55+2) * time.Minute
				}
				np, ne, err := writeWorkload(ctx, c, wl, templates[wl.Template], p.Nodes, now.Add(-age), recent[i], uint64(i))
				pods.Add(int64(np))
				events.Add(int64(ne))
				if err != nil {
					errs <- fmt.Errorf("deployment %s/%s: %w", wl.Namespace, wl.Name, err)
					cancel()
					return
				}
			}
		})
	}
	last := time.Now()
feed:
	for i := range p.Workloads {
		select {
		case queue <- i:
		case <-ctx.Done():
			break feed
		}
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			fmt.Fprintf(progress, "fill: %d/%d Deployments, %d pods, %d events (%.0fs)\n", i, len(p.Workloads), pods.Load(), events.Load(), time.Since(start).Seconds())
		}
	}
	close(queue)
	wg.Wait()
	select {
	case err := <-errs:
		return w, err
	default:
	}
	if err := ctx.Err(); err != nil {
		return w, err
	}
	w.Deployments, w.ReplicaSets = len(p.Workloads), len(p.Workloads)
	w.Pods, w.Events = int(pods.Load()), int(events.Load())
	// The rest of the budget: events about pods of earlier rollouts,
	// gone since, as a busy namespace holds many of.
	n, err := writeLeftovers(ctx, c, p, templates[Healthy], now, max(0, budget), rng)
	w.Events += n
	w.Took = time.Since(start)
	return w, err
}

// writeWorkload writes one Deployment, its ReplicaSet and pods, copied from
// t with everything moved to at, and, when withEvents, their events. It
// returns how many pods and events it wrote.
func writeWorkload(ctx context.Context, c kubernetes.Interface, wl Workload, t *Template, nodes []string, at time.Time, withEvents bool, seed uint64) (int, int, error) {
	rng := rand.New(rand.NewPCG(seed, 0x706f6473))
	shift := at.Sub(t.CapturedAt)
	hash := suffix(rng, 10)
	rsName := wl.Name + "-" + hash
	pairs := map[string]string{t.ReplicaSet.Name: rsName, t.Deployment.Namespace: wl.Namespace}
	// Pods: replica i is a copy of template pod i mod k.
	k := len(t.Pods)
	type podCopy struct {
		from *corev1.Pod
		name string
		node string
	}
	var copiesOf []podCopy
	if k > 0 {
		for i := range wl.Replicas {
			copiesOf = append(copiesOf, podCopy{from: &t.Pods[i%k], name: rsName + "-" + suffix(rng, 5), node: nodes[int(seed*31+uint64(i))%len(nodes)]})
		}
	}
	names := replacer(pairs)

	d, err := rewrite(&t.Deployment, names, shift)
	if err != nil {
		return 0, 0, err
	}
	fresh(&d.ObjectMeta, wl.Namespace, wl.Name)
	relabel(d.Labels, wl.Name)
	relabel(d.Spec.Selector.MatchLabels, wl.Name)
	relabel(d.Spec.Template.Labels, wl.Name)
	d.Spec.Replicas = ptr(int32(wl.Replicas))
	d.Status = scaleDeployment(d.Status, len(t.Pods), wl.Replicas)
	dStatus := d.Status
	d, err = createWithStatus(ctx, c.AppsV1().Deployments(wl.Namespace), d, func(d *appsv1.Deployment) {
		d.Status = dStatus
		d.Status.ObservedGeneration = d.Generation
	})
	if err != nil {
		return 0, 0, err
	}

	rs, err := rewrite(&t.ReplicaSet, names, shift)
	if err != nil {
		return 0, 0, err
	}
	oldHash := t.ReplicaSet.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	fresh(&rs.ObjectMeta, wl.Namespace, rsName)
	for _, m := range []map[string]string{rs.Labels, rs.Spec.Selector.MatchLabels, rs.Spec.Template.Labels} {
		relabel(m, wl.Name)
		if m[appsv1.DefaultDeploymentUniqueLabelKey] == oldHash {
			m[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		}
	}
	rs.OwnerReferences = []metav1.OwnerReference{controllerRef("apps/v1", "Deployment", d.Name, d.UID)}
	rs.Spec.Replicas = ptr(int32(wl.Replicas))
	rs.Status = scaleReplicaSet(rs.Status, len(t.Pods), wl.Replicas)
	rsStatus := rs.Status
	rs, err = createWithStatus(ctx, c.AppsV1().ReplicaSets(wl.Namespace), rs, func(rs *appsv1.ReplicaSet) {
		rs.Status = rsStatus
		rs.Status.ObservedGeneration = rs.Generation
	})
	if err != nil {
		return 0, 0, err
	}

	uids := map[string]types.UID{"Deployment/" + t.Deployment.Name: d.UID, "ReplicaSet/" + t.ReplicaSet.Name: rs.UID}
	perPod := map[string][]podCopy{}
	var served []servedPod
	var mu sync.Mutex
	g, pctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, pc := range copiesOf {
		pairs := map[string]string{
			pc.from.Name: pc.name, string(pc.from.UID): "", t.ReplicaSet.Name: rsName,
			t.Deployment.Namespace: wl.Namespace, pc.from.Spec.NodeName: pc.node,
		}
		pod, err := rewrite(pc.from, replacer(pairs), shift)
		if err != nil {
			return 0, 0, err
		}
		fresh(&pod.ObjectMeta, wl.Namespace, pc.name)
		relabel(pod.Labels, wl.Name)
		pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		pod.GenerateName = rsName + "-"
		pod.OwnerReferences = []metav1.OwnerReference{controllerRef("apps/v1", "ReplicaSet", rs.Name, rs.UID)}
		if pod.Spec.NodeName != "" {
			pod.Spec.NodeName = pc.node
			ip := fmt.Sprintf("10.%d.%d.%d", 64+int(seed)%64, i/250%250, i%250+2)
			pod.Status.PodIP, pod.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
			host := nodeIP(indexOf(nodes, pc.node))
			pod.Status.HostIP, pod.Status.HostIPs = host, []corev1.HostIP{{IP: host}}
		}
		// A pod no node was assigned is the scheduler's: it writes the
		// pod's condition and events itself, with this cluster's nodes.
		bound := pod.Spec.NodeName != ""
		status := pod.Status
		served = append(served, servedPod{name: pc.name, ip: status.PodIP, node: pod.Spec.NodeName, ready: podReady(status)})
		g.Go(func() error {
			var set func(*corev1.Pod)
			if bound {
				set = func(p *corev1.Pod) { p.Status = status }
			}
			created, err := createWithStatus(pctx, c.CoreV1().Pods(wl.Namespace), pod, set)
			if err != nil {
				return err
			}
			mu.Lock()
			uids["Pod/"+pod.Name] = created.UID
			mu.Unlock()
			return nil
		})
		perPod[pc.from.Name] = append(perPod[pc.from.Name], pc)
	}
	if err := g.Wait(); err != nil {
		return 0, 0, err
	}
	if err := writeService(ctx, c, wl.Namespace, wl.Name, &d.Spec.Template, served); err != nil {
		return 0, 0, err
	}
	written := len(copiesOf)
	if !withEvents {
		return written, 0, nil
	}

	var events atomic.Int64
	g, ectx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for j, e := range t.Events {
		if e.Source == "default-scheduler" && e.Reason != "Scheduled" {
			continue // the scheduler writes its own about the pods it cannot place
		}
		var about []struct{ kind, name, node string }
		switch e.Object.Kind {
		case "Deployment":
			about = append(about, struct{ kind, name, node string }{"Deployment", wl.Name, ""})
		case "ReplicaSet":
			about = append(about, struct{ kind, name, node string }{"ReplicaSet", strings.Replace(e.Object.Name, t.ReplicaSet.Name, rsName, 1), ""})
		case "Pod":
			for _, pc := range perPod[e.Object.Name] {
				about = append(about, struct{ kind, name, node string }{"Pod", pc.name, pc.node})
			}
		}
		for n, a := range about {
			pairs := map[string]string{t.ReplicaSet.Name: rsName, t.Deployment.Namespace: wl.Namespace}
			var uid types.UID
			switch a.kind {
			case "Pod":
				pc := perPod[e.Object.Name][n]
				pairs[pc.from.Name], pairs[string(pc.from.UID)], pairs[pc.from.Spec.NodeName] = pc.name, string(uids["Pod/"+pc.name]), pc.node
				uid = uids["Pod/"+pc.name]
			case "ReplicaSet":
				uid = uids["ReplicaSet/"+e.Object.Name]
			default:
				uid = d.UID
			}
			// "Created pod: NAME" of the ReplicaSet names a template pod.
			for i, pc := range copiesOf {
				if i < len(t.Pods) {
					pairs[pc.from.Name] = pc.name
				}
			}
			ev, err := eventFor(e, wl.Namespace, a.kind, a.name, uid, a.node, replacer(pairs), shift, fmt.Sprintf("%x", uint64(j)<<20|uint64(n)))
			if err != nil {
				return written, 0, err
			}
			g.Go(func() error {
				if err := createEvent(ectx, c, ev); err != nil {
					return err
				}
				events.Add(1)
				return nil
			})
		}
	}
	err = g.Wait()
	return written, int(events.Load()), err
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return 0
}

// relabel points the app label at the copy's name.
func relabel(m map[string]string, name string) {
	if m != nil {
		if _, ok := m["app"]; ok {
			m["app"] = name
		}
	}
}

func controllerRef(api, kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: api, Kind: kind, Name: name, UID: uid, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
}

func ptr[T any](v T) *T { return &v }

const alphabet = "bcdfghjklmnpqrstvwxz2456789" // apimachinery's rand.String alphabet

func suffix(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// scaleDeployment scales a Deployment status captured with k pods to n.
func scaleDeployment(s appsv1.DeploymentStatus, k, n int) appsv1.DeploymentStatus {
	sc := func(v int32) int32 { return scale(v, k, n) }
	s.Replicas, s.UpdatedReplicas, s.ReadyReplicas = sc(s.Replicas), sc(s.UpdatedReplicas), sc(s.ReadyReplicas)
	s.AvailableReplicas, s.UnavailableReplicas = sc(s.AvailableReplicas), sc(s.UnavailableReplicas)
	if s.TerminatingReplicas != nil {
		s.TerminatingReplicas = ptr(sc(*s.TerminatingReplicas))
	}
	return s
}

func scaleReplicaSet(s appsv1.ReplicaSetStatus, k, n int) appsv1.ReplicaSetStatus {
	sc := func(v int32) int32 { return scale(v, k, n) }
	s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas = sc(s.Replicas), sc(s.FullyLabeledReplicas), sc(s.ReadyReplicas), sc(s.AvailableReplicas)
	if s.TerminatingReplicas != nil {
		s.TerminatingReplicas = ptr(sc(*s.TerminatingReplicas))
	}
	return s
}

// scale is v of k as many of n; with no pods captured (a ReplicaSet that
// could create none) it stays.
func scale(v int32, k, n int) int32 {
	if k == 0 {
		return v
	}
	return int32(int(v) * n / k)
}
