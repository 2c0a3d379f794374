package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// applyThen makes the scenario's second step: once its workload has a pod
// (or, with ThenWhenReady, all its pods ready), the workloads of
// NAME.then.yaml replace the spec of those of the first step, as a
// kubectl apply of a new template would.
func applyThen(ctx context.Context, c kubernetes.Interface, s Scenario, ns string, o Options) error {
	objs, err := stepObjects(s, "then", ns, o)
	if err != nil {
		return err
	}
	if err := waitFirstStep(ctx, c, s, ns, s.ThenWhenReady, "a second step"); err != nil {
		return err
	}
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind() == RolloutKind {
			if err := newRolloutTemplate(ctx, c, ns, u); err != nil {
				return fmt.Errorf("scenario %s, second step: %w", s.Name, err)
			}
			continue
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error { return newTemplate(ctx, c, ns, obj) })
		if err != nil {
			return fmt.Errorf("scenario %s, second step: %w", s.Name, err)
		}
	}
	return nil
}

// waitFirstStep waits until the scenario's first step has a pod, or with
// ready all its pods ready; what names what waits, for the errors.
func waitFirstStep(ctx context.Context, c kubernetes.Interface, s Scenario, ns string, ready bool, what string) error {
	done := firstStepDone(s.KindOf())
	if done == nil {
		return fmt.Errorf("scenario %s: %s for a %s is not supported", s.Name, what, s.KindOf())
	}
	for {
		ok, err := done(ctx, c, ns, ready)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("scenario %s: waiting for its first step: %w", s.Name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stepDone says whether a scenario's first step is far enough for its
// second: its workload has a pod, or, with ready, all its pods ready at its
// current revision.
type stepDone func(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error)

// firstStepDone is the kind's stepDone; nil for a kind with no second step.
func firstStepDone(k chain.Kind) stepDone {
	switch k {
	case chain.KindRollout:
		return rolloutStepDone
	case chain.KindStatefulSet:
		return func(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error) {
			set, err := c.AppsV1().StatefulSets(ns).Get(ctx, Deployment, metav1.GetOptions{})
			if err != nil || !ready {
				return err == nil && set.Status.Replicas > 0, err
			}
			return set.Spec.Replicas != nil && set.Status.ReadyReplicas == *set.Spec.Replicas && set.Status.CurrentRevision == set.Status.UpdateRevision, nil
		}
	case chain.KindDeployment:
		return func(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error) {
			d, err := c.AppsV1().Deployments(ns).Get(ctx, Deployment, metav1.GetOptions{})
			if err != nil || !ready {
				return err == nil && d.Status.Replicas > 0, err
			}
			want := ptr.Deref(d.Spec.Replicas, 1)
			return d.Status.ObservedGeneration == d.Generation && d.Status.UpdatedReplicas == want && d.Status.AvailableReplicas == want, nil
		}
	case chain.KindDaemonSet:
		return func(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error) {
			ds, err := c.AppsV1().DaemonSets(ns).Get(ctx, Deployment, metav1.GetOptions{})
			if err != nil || !ready {
				return err == nil && ds.Status.CurrentNumberScheduled > 0, err
			}
			st := ds.Status
			return st.ObservedGeneration == ds.Generation && st.DesiredNumberScheduled > 0 &&
				st.UpdatedNumberScheduled == st.DesiredNumberScheduled && st.NumberAvailable == st.DesiredNumberScheduled, nil
		}
	}
	return nil
}

// newTemplate gives the namespace's workload of obj's kind and name obj's
// pod template (and a StatefulSet its update strategy), as a kubectl apply
// of a new template would: its controller starts a new revision.
func newTemplate(ctx context.Context, c kubernetes.Interface, ns string, obj any) error {
	apps := c.AppsV1()
	switch w := obj.(type) {
	case *appsv1.StatefulSet:
		cur, err := apps.StatefulSets(ns).Get(ctx, w.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Template, cur.Spec.UpdateStrategy = w.Spec.Template, w.Spec.UpdateStrategy
		_, err = apps.StatefulSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	case *appsv1.Deployment:
		cur, err := apps.Deployments(ns).Get(ctx, w.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Template = w.Spec.Template
		_, err = apps.Deployments(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	case *appsv1.DaemonSet:
		cur, err := apps.DaemonSets(ns).Get(ctx, w.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Template = w.Spec.Template
		_, err = apps.DaemonSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	return fmt.Errorf("object of unsupported type %T", obj)
}

// rolloutStepDone says the namespace's Rollout has pods, or, with ready,
// that its controller calls it Healthy at its current generation.
func rolloutStepDone(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error) {
	raw, err := c.Discovery().RESTClient().Get().AbsPath(append(customPath(RolloutKind, ns), Deployment)...).DoRaw(ctx)
	if err != nil {
		return false, err
	}
	var ro chain.Rollout
	if err := json.Unmarshal(raw, &ro); err != nil {
		return false, err
	}
	if ready {
		return ro.Status.Phase == "Healthy" && ro.Status.ObservedGeneration == strconv.FormatInt(ro.Generation, 10), nil
	}
	return ro.Status.Replicas > 0, nil
}

// newRolloutTemplate replaces the Rollout's pod template with u's, as a
// kubectl apply of a new template would: the Rollouts controller starts a
// new revision.
func newRolloutTemplate(ctx context.Context, c kubernetes.Interface, ns string, u *unstructured.Unstructured) error {
	template, ok, err := unstructured.NestedMap(u.Object, "spec", "template")
	if err != nil || !ok {
		return fmt.Errorf("rollout %s of the second step has no spec.template", u.GetName())
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		return err
	}
	return c.Discovery().RESTClient().Patch(types.MergePatchType).AbsPath(append(customPath(RolloutKind, ns), u.GetName())...).
		Body(patch).Do(ctx).Error()
}
