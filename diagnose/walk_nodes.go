package diagnose

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// nodeGone finds a scheduled pod whose node went away, and says so on the
// node-assignment link: the cause is the node, not the pod that only
// looks stuck. Two signs, both the node lifecycle controller's: the pod's
// status.reason NodeLost with its message ("Node NODE which was running
// pod POD is unresponsive", releases up to 1.13), or its Ready condition
// False with the NodeNotReady event ("Node is not ready", MarkPodsNotReady
// in pkg/controller/util/node at v1.37.2) recorded since it changed. A
// node comes back from a restart: NodeNotReady's window (the pods'
// default not-ready toleration) keeps it progressing until then.
func (w *walker) nodeGone(c *collector, p *corev1.Pod) {
	obj := objectName("pod", p.Name)
	node := p.Spec.NodeName
	add := func(msg string, since time.Time, ev chain.Evidence) {
		d, _ := decode.NodeGoneWords(msg)
		d.Summary = fmt.Sprintf("node %s went away under the pod: %s", node, d.Summary)
		d.Details = append([]chain.Detail{{Key: "node", Value: node}}, d.Details...)
		d.Progressing = true
		evidence := []chain.Evidence{ev}
		if n := w.node(node); n != nil {
			if cond := nodeReady(n); cond != nil {
				evidence = append(evidence, conditionEvidence(objectName("node", node), string(cond.Type), string(cond.Status), cond.Reason, cond.Message))
			}
		}
		c.add(sighting{d: d, object: obj, since: since, evidence: evidence})
	}
	ready := podCondition(p, corev1.PodReady)
	if p.Status.Reason == "NodeLost" {
		since := time.Time{}
		if ready != nil {
			since = ready.LastTransitionTime.Time
		}
		add("NodeLost", since, chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: "status.reason", Reason: p.Status.Reason, Message: p.Status.Message})
		return
	}
	if ready == nil || ready.Status == corev1.ConditionTrue {
		return
	}
	evs := w.s.EventsFor("Pod", p.Name, p.UID)
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		// Recorded right after the status update that made the pod not
		// Ready; an older one is a node that came back since.
		if e.Reason == "NodeNotReady" && e.Message == "Node is not ready" && !e.Last.Before(ready.LastTransitionTime.Add(-5*time.Second)) {
			add(e.Message, ready.LastTransitionTime.Time, eventEvidence(e))
			return
		}
	}
}

// node is the snapshot's node of that name, nil when it was not read.
func (w *walker) node(name string) *corev1.Node {
	for i := range w.s.Nodes {
		if w.s.Nodes[i].Name == name {
			return &w.s.Nodes[i]
		}
	}
	return nil
}
