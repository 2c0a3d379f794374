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

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// applyThen makes the scenario's second step: once its workload has a pod
// (or, with ThenWhenReady, all its pods ready), the workloads of
// NAME.then.yaml replace the spec of those of the first step, as a
// kubectl apply of a new template would.
func applyThen(ctx context.Context, c kubernetes.Interface, s Scenario, ns string, o Options) error {
	raw, err := manifests.ReadFile("manifests/" + s.Name + ".then.yaml")
	if err != nil {
		return err
	}
	objs, err := Decode(raw)
	if err != nil {
		return fmt.Errorf("scenario %s, second step: %w", s.Name, err)
	}
	localize(objs, ns, o.Images)
	if o.Engine != "" {
		pin(objs, o.Engine)
	}
	for {
		done := firstStepDone
		if s.KindOf() == chain.KindRollout {
			done = rolloutStepDone
		}
		ready, err := done(ctx, c, ns, s.ThenWhenReady)
		if err != nil {
			return err
		}
		if ready {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("scenario %s: waiting for its first step: %w", s.Name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind() == RolloutKind {
			if err := newRolloutTemplate(ctx, c, ns, u); err != nil {
				return fmt.Errorf("scenario %s, second step: %w", s.Name, err)
			}
			continue
		}
		set, ok := obj.(*appsv1.StatefulSet)
		if !ok {
			return fmt.Errorf("scenario %s, second step: object of unsupported type %T", s.Name, obj)
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := c.AppsV1().StatefulSets(ns).Get(ctx, set.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Template, cur.Spec.UpdateStrategy = set.Spec.Template, set.Spec.UpdateStrategy
			_, err = c.AppsV1().StatefulSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("scenario %s, second step: %w", s.Name, err)
		}
	}
	return nil
}

// firstStepDone says the namespace's StatefulSet has a pod, or, with
// ready, all its replicas ready at its current revision.
func firstStepDone(ctx context.Context, c kubernetes.Interface, ns string, ready bool) (bool, error) {
	set, err := c.AppsV1().StatefulSets(ns).Get(ctx, Deployment, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	if ready {
		return set.Spec.Replicas != nil && set.Status.ReadyReplicas == *set.Spec.Replicas && set.Status.CurrentRevision == set.Status.UpdateRevision, nil
	}
	return set.Status.Replicas > 0, nil
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
