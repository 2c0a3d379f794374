package fill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
)

// eventsOf is how many events a copy of t with replicas pods has: the
// Deployment's and the ReplicaSet's as captured, and each pod's as many
// times as the pods it stands for.
func eventsOf(t *Template, replicas int) int {
	n := 0
	for _, e := range t.Events {
		if e.Object.Kind != "Pod" {
			n++
		}
	}
	for i, p := range t.Pods {
		n += eventsAbout(t, p.Name) * copies(t, replicas, i)
	}
	return n
}

func eventsAbout(t *Template, pod string) int {
	n := 0
	for _, e := range t.Events {
		if e.Object.Kind == "Pod" && e.Object.Name == pod {
			n++
		}
	}
	return n
}

// copies is how many of replicas pods are copies of template pod i:
// replica j copies pod j mod k.
func copies(t *Template, replicas, i int) int {
	k := len(t.Pods)
	n := replicas / k
	if i < replicas%k {
		n++
	}
	return n
}

// eventFor is a core/v1 event copied from e about kind/name.
func eventFor(e chain.Event, namespace, kind, name string, uid types.UID, node string, names *strings.Replacer, shift time.Duration, id string) (*corev1.Event, error) {
	api := "v1"
	if kind == "Deployment" || kind == "ReplicaSet" {
		api = "apps/v1"
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: namespace, Name: name + "." + id},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: namespace, Name: name, UID: uid, APIVersion: api, FieldPath: e.FieldPath},
		Reason:         e.Reason,
		Message:        e.Message,
		Type:           e.Type,
		Count:          max(1, e.Count),
		FirstTimestamp: metav1.NewTime(e.First),
		LastTimestamp:  metav1.NewTime(e.Last),
		Source:         corev1.EventSource{Component: e.Source},
	}
	if e.Source == "kubelet" {
		ev.Source.Host = node
	}
	return rewrite(ev, names, shift)
}

func createEvent(ctx context.Context, c kubernetes.Interface, ev *corev1.Event) error {
	return retry(ctx, func() error {
		_, err := c.CoreV1().Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// writeLeftovers writes n events about pods of earlier rollouts of the
// healthy Deployments: what the kubelet and the ReplicaSet controller said
// as they started and, at the next rollout, stopped them.
func writeLeftovers(ctx context.Context, c kubernetes.Interface, p Plan, t *Template, now time.Time, n int, rng *rand.Rand) (int, error) {
	if n == 0 || len(t.Pods) == 0 {
		return 0, nil
	}
	killing := ""
	for _, f := range kubelet.PodEventFormats() {
		if f.Reason == "Killing" && strings.HasPrefix(f.Format, "Stopping container") {
			killing = f.Format
		}
	}
	tpl := t.Pods[0]
	var podEvents []chain.Event
	for _, e := range t.Events {
		if e.Object.Kind == "Pod" && e.Object.Name == tpl.Name {
			podEvents = append(podEvents, e)
		}
	}
	var healthy []Workload
	for _, w := range p.Workloads {
		if !w.Broken {
			healthy = append(healthy, w)
		}
	}
	written := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	queue := make(chan *corev1.Event, workers)
	for range workers {
		wg.Go(func() {
			for ev := range queue {
				if err := createEvent(ctx, c, ev); err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				mu.Lock()
				written++
				mu.Unlock()
			}
		})
	}
	finish := func(err error) (int, error) {
		close(queue)
		wg.Wait()
		return written, err
	}
	for queued := 0; queued < n; {
		w := healthy[rng.IntN(len(healthy))]
		pod := w.Name + "-" + suffix(rng, 10) + "-" + suffix(rng, 5)
		shift := now.Add(-time.Duration(2+rng.IntN(55)) * time.Minute).Sub(t.CapturedAt)
		names := replacer(map[string]string{tpl.Name: pod, t.Deployment.Namespace: w.Namespace})
		uid := types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), rng.Uint64()&0xffffffffffff))
		batch := append([]chain.Event(nil), podEvents...)
		if killing != "" && len(tpl.Spec.Containers) > 0 && len(podEvents) > 0 {
			last := podEvents[len(podEvents)-1]
			batch = append(batch, chain.Event{Type: "Normal", Reason: "Killing", Message: fmt.Sprintf(killing, tpl.Spec.Containers[0].Name),
				FieldPath: last.FieldPath, Count: 1, First: last.Last.Add(20 * time.Minute), Last: last.Last.Add(20 * time.Minute), Source: "kubelet"})
		}
		for j, e := range batch[:min(len(batch), n-queued)] {
			ev, err := eventFor(e, w.Namespace, "Pod", pod, uid, "", names, shift, fmt.Sprintf("%x", j))
			if err != nil {
				return finish(err)
			}
			select {
			case queue <- ev:
				queued++
			case err := <-errs:
				return finish(err)
			case <-ctx.Done():
				return finish(ctx.Err())
			}
		}
	}
	return finish(nil)
}
