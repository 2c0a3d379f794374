package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// objRef is what an event is about.
type objRef struct {
	apiVersion, kind, name string
	uid                    types.UID
}

func podRef(p *corev1.Pod) objRef { return objRef{"v1", "Pod", p.Name, p.UID} }
func rsRef(rs *appsv1.ReplicaSet) objRef {
	return objRef{"apps/v1", "ReplicaSet", rs.Name, rs.UID}
}
func (g *G) depRef() objRef { return objRef{"apps/v1", "Deployment", g.d.Name, g.d.UID} }

// ev is a core/v1 event as client-go's record package writes it.
func (g *G) ev(o objRef, fieldPath, typ, reason, msg, component, host string, first, last time.Duration, count int32) *corev1.Event {
	ft := g.t0.Add(first).Add(time.Duration(g.rnd.Intn(999999999)))
	e := &corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%v.%x", o.name, ft.UnixNano()), Namespace: ns,
			UID: g.uid(), CreationTimestamp: g.at(first)},
		InvolvedObject: corev1.ObjectReference{APIVersion: o.apiVersion, Kind: o.kind, Name: o.name, Namespace: ns,
			UID: o.uid, FieldPath: fieldPath, ResourceVersion: g.nextRV()},
		Reason: reason, Message: msg, Type: typ,
		Source:         corev1.EventSource{Component: component, Host: host},
		FirstTimestamp: g.at(first), LastTimestamp: g.at(last), Count: count,
		ReportingController: component, ReportingInstance: host,
	}
	e.ResourceVersion = g.nextRV()
	g.evs = append(g.evs, e)
	return e
}

// schedEv is an events.k8s.io/v1 event (the scheduler's) as kubectl get
// events reads it through core/v1: eventTime and series, no timestamps or count.
func (g *G) schedEv(p *corev1.Pod, typ, reason, action, msg string, first time.Duration, seriesCount int32, lastObserved time.Duration) *corev1.Event {
	ft := g.t0.Add(first).Add(time.Duration(g.rnd.Intn(999999)) * time.Microsecond)
	e := &corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%v.%x", p.Name, ft.UnixNano()), Namespace: ns,
			UID: g.uid(), CreationTimestamp: g.at(first)},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, Namespace: ns,
			UID: p.UID, ResourceVersion: g.nextRV()},
		Reason: reason, Message: msg, Type: typ, Action: action,
		EventTime:           metav1.NewMicroTime(ft),
		ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-lab-control-plane",
	}
	if seriesCount > 1 {
		e.Series = &corev1.EventSeries{Count: seriesCount, LastObservedTime: metav1.NewMicroTime(g.t0.Add(lastObserved).Add(time.Duration(g.rnd.Intn(999999)) * time.Microsecond))}
	}
	e.ResourceVersion = g.nextRV()
	g.evs = append(g.evs, e)
	return e
}

func cpath(name string) string    { return fmt.Sprintf("spec.containers{%s}", name) }
func initpath(name string) string { return fmt.Sprintf("spec.initContainers{%s}", name) }
func kpod(p *corev1.Pod) string   { return fmt.Sprintf("%s_%s(%s)", p.Name, p.Namespace, p.UID) }

// write prints the List as kubectl get deploy,rs,pods,events -o yaml does.
func (g *G) write(dir string) error {
	items := []any{g.d}
	sort.Slice(g.rss, func(i, j int) bool { return g.rss[i].Name < g.rss[j].Name })
	for _, rs := range g.rss {
		if rs.ResourceVersion == "" {
			rs.ResourceVersion = g.nextRV()
		}
		items = append(items, rs)
	}
	sort.Slice(g.pods, func(i, j int) bool { return g.pods[i].Name < g.pods[j].Name })
	for _, p := range g.pods {
		if p.ResourceVersion == "" {
			p.ResourceVersion = g.nextRV()
		}
		items = append(items, p)
	}
	sort.Slice(g.evs, func(i, j int) bool { return g.evs[i].Name < g.evs[j].Name })
	for _, e := range g.evs {
		items = append(items, e)
	}
	if g.d.ResourceVersion == "" {
		g.d.ResourceVersion = g.nextRV()
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	b, err := yaml.Marshal(list)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, g.name+".yaml"), b, 0o644)
}
