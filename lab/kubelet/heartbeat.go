package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// register creates the node, or takes over the one a previous run created.
func (a *nodeAgent) register(ctx context.Context) error {
	now := a.clock.Now()
	nodes := a.client.CoreV1().Nodes()
	created, err := nodes.Create(ctx, newNode(a.cfg, a.kernel, now), metav1.CreateOptions{})
	if err == nil {
		a.node, a.readySince, a.reportedAt = created, now, now
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	existing, err := nodes.Get(ctx, a.cfg.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	a.node, a.readySince = existing, now
	for _, c := range existing.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			a.readySince = c.LastTransitionTime.Time
		}
	}
	return a.postStatus(ctx)
}

// eventsAccepted dry-runs an event in namespace "default", where node events
// go: right after the API server turns ready that namespace may not exist
// yet, and the recorder drops what the API server rejects.
func (a *nodeAgent) eventsAccepted(ctx context.Context) error {
	probe := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: a.cfg.Name + ".", Namespace: metav1.NamespaceDefault},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: a.cfg.Name, UID: a.node.UID},
		Reason:         reasonStarting,
		Source:         corev1.EventSource{Component: "kubelet", Host: a.cfg.Name},
		Type:           corev1.EventTypeNormal,
	}
	_, err := a.client.CoreV1().Events(metav1.NamespaceDefault).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// announce records the events a kubelet emits when it starts and first
// reports its conditions.
func (a *nodeAgent) announce() {
	ref := &corev1.ObjectReference{Kind: "Node", Name: a.node.Name, UID: a.node.UID}
	emit(a.events, ref, reasonStarting, msgStartingKubelet)
	for _, r := range []string{"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", reasonNodeReady} {
		emit(a.events, ref, r, fmt.Sprintf(msgNodeStatus, a.node.Name, r))
	}
}

// heartbeatLoop renews the Lease every period until ctx ends, so the node
// lifecycle controller never marks the node NotReady, and posts the node's
// status when it changed.
func (a *nodeAgent) heartbeatLoop(ctx context.Context) {
	if err := a.renewLease(ctx); err != nil {
		klog.ErrorS(err, "renewing the node lease", "node", a.cfg.Name)
	}
	every(ctx, a.clock, a.heartbeat, func() { a.beat(ctx) })
}

// every calls f each period until ctx ends.
func every(ctx context.Context, clk clock.WithTicker, period time.Duration, f func()) {
	t := clk.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		f()
	}
}

// beat is one heartbeat: renew the Lease, then post the node's status if it
// changed or the report period passed since the last post.
func (a *nodeAgent) beat(ctx context.Context) {
	if a.stopped() {
		return
	}
	if err := a.renewLease(ctx); err != nil && ctx.Err() == nil {
		klog.ErrorS(err, "renewing the node lease", "node", a.cfg.Name)
	}
	if !a.statusChanged() && a.clock.Since(a.reportedAt) < statusReportPeriod {
		return
	}
	if err := a.postStatus(ctx); err != nil && ctx.Err() == nil {
		klog.ErrorS(err, "posting the node status", "node", a.cfg.Name)
	}
}

// statusChanged reports whether the node's status differs from the stored
// one, as the kubelet's updateNode does: its images since the last post, or
// a condition another writer changed (the node lifecycle controller sets
// Ready to Unknown when the Lease was not renewed in time). A Ready
// condition that comes back to True starts a new transition.
func (a *nodeAgent) statusChanged() bool {
	if !apiequality.Semantic.DeepEqual(a.images.nodeImages(), a.reportedImages) {
		return true
	}
	if a.stored == nil {
		return false
	}
	obj, ok, err := a.stored.GetByKey(a.cfg.Name)
	if err != nil || !ok {
		return false
	}
	stored := map[corev1.NodeConditionType]corev1.NodeCondition{}
	for _, c := range obj.(*corev1.Node).Status.Conditions {
		stored[c.Type] = c
	}
	changed := false
	for _, c := range nodeConditions(a.readySince, a.clock.Now()) {
		s, ok := stored[c.Type]
		if ok && s.Status == c.Status && s.Reason == c.Reason && s.Message == c.Message {
			continue
		}
		changed = true
		if c.Type == corev1.NodeReady && (!ok || s.Status != c.Status) {
			a.readySince = a.clock.Now()
		}
	}
	return changed
}

// postStatus patches the node's conditions (merged by type) and images, as
// the kubelet's PatchNodeStatus does, leaving other writers' fields alone.
func (a *nodeAgent) postStatus(ctx context.Context) error {
	images := a.images.nodeImages()
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"conditions": nodeConditions(a.readySince, a.clock.Now()),
		"images":     images,
	}})
	if err != nil {
		return err
	}
	if _, err := a.client.CoreV1().Nodes().Patch(ctx, a.cfg.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return err
	}
	a.reportedImages, a.reportedAt = images, a.clock.Now()
	return nil
}
