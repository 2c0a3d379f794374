package diagnose

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// daemonSetLinks: stored, nodes (which should run a pod, which are
// excluded and why, which are NotReady), pods per node, then the shared
// node-assignment, containers and ready links.
func (w *walker) daemonSetLinks() []chain.Link {
	ds := w.s.DaemonSet
	want := ds.Status.DesiredNumberScheduled
	w.want = &want
	stored := w.storedWorkload(ds, ds.Status.ObservedGeneration, plural(want, "node")+" should run a pod", "")
	candidates := w.ownedPods(ds)
	_, notes := w.keepLive(candidates, "the DaemonSet controller")
	nodes := w.nodesLink(ds)
	links := []chain.Link{stored, nodes, w.daemonPods(ds, notes), w.nodeAssignment(), w.containers()}
	ready := w.ready(links, daemonSetRollout(ds))
	if note := maxUnavailableStall(ds); note != "" {
		ready.Notes = append(ready.Notes, note)
	}
	return append(links, ready)
}

// maxUnavailableStall says a rolling update waits on its maxUnavailable
// budget: as many pods as it allows are unavailable, so the controller
// replaces no more old pods until they are ready (or their nodes are fixed).
func maxUnavailableStall(ds *appsv1.DaemonSet) string {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	st := ds.Status
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxUnavailable == nil ||
		st.UpdatedNumberScheduled >= st.DesiredNumberScheduled || st.NumberUnavailable == 0 {
		return ""
	}
	budget, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, int(st.DesiredNumberScheduled), true)
	if err != nil || int(st.NumberUnavailable) < budget {
		return ""
	}
	return fmt.Sprintf("the rollout is stalled: %d pods unavailable, maxUnavailable %s allows %d; the controller replaces no more old pods until these are ready",
		st.NumberUnavailable, ru.MaxUnavailable.String(), budget)
}

// daemonTolerations are the tolerations the DaemonSet controller adds to
// every daemon pod (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations):
// not-ready and unreachable NoExecute, and the node-pressure and
// unschedulable NoSchedule taints, so none of them keeps a daemon off.
var daemonTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

// excludedBy says why the DaemonSet controller would not run a pod of
// template on node: its nodeSelector or required node affinity, or a
// NoSchedule or NoExecute taint it does not tolerate; "" when it should.
func excludedBy(template *corev1.PodTemplateSpec, node *corev1.Node) string {
	pod := &corev1.Pod{Spec: template.Spec}
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return "nodeSelector or node affinity"
	}
	tols := append(append([]corev1.Toleration(nil), template.Spec.Tolerations...), daemonTolerations...)
	if template.Spec.HostNetwork {
		tols = append(tols, corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	for _, t := range node.Spec.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || tolerated(tols, t) {
			continue
		}
		return fmt.Sprintf("taint %s", taintString(t))
	}
	return ""
}

// tolerated is the API's toleration rule (k8s.io/api/core/v1
// Toleration.ToleratesTaint) for the Equal and Exists operators.
func tolerated(tols []corev1.Toleration, t corev1.Taint) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		if tol.Key == "" && tol.Operator == corev1.TolerationOpExists {
			return true
		}
		if tol.Key != t.Key {
			continue
		}
		if tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value {
			return true
		}
	}
	return false
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// nodesLink: the DaemonSet controller picks the nodes that should run a
// pod. Excluded nodes are said by reason; eligible nodes that are NotReady
// are blamed, not the revision: "the nodes are broken" and "the new
// revision is broken" need different people.
func (w *walker) nodesLink(ds *appsv1.DaemonSet) chain.Link {
	obj := objectName("daemonset", ds.Name)
	c := &collector{}
	if g := w.s.Gap(chain.ResourceNodes); g != nil || len(w.s.Nodes) == 0 {
		// Without the nodes, the controller's own count says how many.
		summary := fmt.Sprintf("%d nodes should run a pod (by the DaemonSet's status; the nodes were not read)", ds.Status.DesiredNumberScheduled)
		if ds.Status.DesiredNumberScheduled == 0 && ds.Status.ObservedGeneration >= ds.Generation {
			c.add(sighting{d: decode.Decoded{Cause: decode.NoEligibleNodes, Progressing: true}, object: obj, since: ds.CreationTimestamp.Time,
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.desiredNumberScheduled", Message: "0"}}})
		}
		l := w.finish(chain.LinkNodes, summary, c, 0)
		if g != nil {
			l.Notes = append(l.Notes, fmt.Sprintf("nodes not read (%s): which nodes are excluded, and why, is not known; check: %s", g.Message, g.Check))
		}
		return l
	}
	excluded := map[string][]string{}
	var reasons []string
	eligible := 0
	var notReady []*corev1.Node
	for i := range w.s.Nodes {
		n := &w.s.Nodes[i]
		if why := excludedBy(&ds.Spec.Template, n); why != "" {
			if _, ok := excluded[why]; !ok {
				reasons = append(reasons, why)
			}
			excluded[why] = append(excluded[why], n.Name)
			continue
		}
		eligible++
		if cond := nodeReady(n); cond == nil || cond.Status != corev1.ConditionTrue {
			notReady = append(notReady, n)
		}
	}
	sort.Strings(reasons)
	summary := fmt.Sprintf("%d of %d nodes should run a pod", eligible, len(w.s.Nodes))
	var notes []string
	for _, why := range reasons {
		notes = append(notes, fmt.Sprintf("%s excluded by %s: %s", plural(int32(len(excluded[why])), "node"), why, someNames(excluded[why])))
	}
	// Nodes it selects but a taint keeps it off say more than "no node".
	if !w.taintedOut(c, ds, excluded) && eligible == 0 {
		c.add(sighting{d: decode.Decoded{Cause: decode.NoEligibleNodes, Progressing: true,
			Summary: fmt.Sprintf("no node should run the pod: %s", someNames(reasons))}, object: obj, since: ds.CreationTimestamp.Time,
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: "status.desiredNumberScheduled",
				Message: fmt.Sprint(ds.Status.DesiredNumberScheduled)}}})
	}
	for _, n := range notReady {
		nobj := objectName("node", n.Name)
		s := sighting{d: decode.Decoded{Cause: decode.DaemonNodesNotReady, Progressing: true,
			NextStep: fmt.Sprintf("look at the node, not the DaemonSet: kubectl describe node %s", n.Name)}, object: nobj,
			evidence: []chain.Evidence{{Source: chain.SourceCondition, Object: nobj, Field: "status.conditions[Ready]", Message: "no Ready condition"}}}
		if cond := nodeReady(n); cond != nil {
			s.since = cond.LastTransitionTime.Time
			s.evidence = []chain.Evidence{conditionEvidence(nobj, string(cond.Type), string(cond.Status), cond.Reason, cond.Message)}
		}
		c.add(s)
	}
	l := w.finish(chain.LinkNodes, summary, c, eligible)
	l.Notes = append(l.Notes, notes...)
	return l
}

func nodeReady(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// daemonPods: the controller created a pod for each node that should run
// one, or said why not.
func (w *walker) daemonPods(ds *appsv1.DaemonSet, notes []string) chain.Link {
	want := ds.Status.DesiredNumberScheduled
	summary := fmt.Sprintf("%d/%d pods created", len(w.pods), want)
	c := &collector{}
	if int32(len(w.pods)) < want {
		w.createFailures(c, "DaemonSet", ds.Name, ds.UID, newestCreated(w.pods))
		if c.empty() {
			w.daemonPlacementFailures(c, ds, newestCreated(w.pods))
		}
	}
	if ds.Status.NumberMisscheduled > 0 {
		notes = append(notes, fmt.Sprintf("%s on nodes that should not run one (numberMisscheduled)", plural(ds.Status.NumberMisscheduled, "pod")))
	}
	l := w.finish(chain.LinkPods, summary, c, 0)
	l.Notes = append(l.Notes, notes...)
	return l
}

// daemonSetRollout is kubectl rollout status's rule for DaemonSets
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go).
func daemonSetRollout(ds *appsv1.DaemonSet) *rollout {
	return &rollout{obj: objectName("daemonset", ds.Name), want: ds.Status.DesiredNumberScheduled, minReady: ds.Spec.MinReadySeconds,
		status: func() (string, bool, string) {
			st := ds.Status
			ev := fmt.Sprintf("desired %d, current %d, updated %d, ready %d, available %d",
				st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.UpdatedNumberScheduled, st.NumberReady, st.NumberAvailable)
			switch {
			case ds.Generation > st.ObservedGeneration:
				return "waiting for the DaemonSet controller to observe the spec", false, ev
			case ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType && st.NumberAvailable >= st.DesiredNumberScheduled:
				return fmt.Sprintf("%d pods available (updateStrategy OnDelete)", st.NumberAvailable), true, ev
			case st.UpdatedNumberScheduled < st.DesiredNumberScheduled:
				return fmt.Sprintf("%d out of %d new pods have been updated", st.UpdatedNumberScheduled, st.DesiredNumberScheduled), false, ev
			case st.NumberAvailable < st.DesiredNumberScheduled:
				return fmt.Sprintf("%d of %d updated pods are available", st.NumberAvailable, st.DesiredNumberScheduled), false, ev
			}
			return "successfully rolled out", true, ev
		}}
}
