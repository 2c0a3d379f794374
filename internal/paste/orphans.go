package paste

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// podNamedRe are the words of scheduler and kubelet messages that name
// their pod: the sandbox's "network for pod \"web-1\"", the old
// scheduler's "pod (web-1) failed to fit", the back-off's "pod=web-1_ns(".
var podNamedRe = []*regexp.Regexp{
	regexp.MustCompile(`(?:network for|set up|tear ?down) pod "([a-z0-9][-a-z0-9.]*?)(?:_([a-z0-9-]+))?"`),
	regexp.MustCompile(`^pod \(([a-z0-9][-a-z0-9.]*)\) failed to fit`),
	regexp.MustCompile(`pod=([a-z0-9][-a-z0-9.]*)_([a-z0-9-]+)\(`),
}

// tieOrphans gives events pasted without the object they are about (an
// Events section or rows without their describe head) that object: the
// pod their Scheduled event or their messages name; else the paste's
// only described object; else its only pod not running ready (a get
// pods row beside them); else a pod the paste does not name.
func (p *parser) tieOrphans() {
	var orphans []*eventText
	for _, e := range p.events {
		if !e.orphan {
			continue
		}
		if kind, name, ok := createdBy(e.row); ok {
			// A controller's refused create is about the owner it names.
			e.row.kind, e.row.name, e.orphan = kind, name, false
			p.note(fmt.Sprintf("events were pasted without their kubectl describe head: the FailedCreate ones are read as %s/%s's (their message names it)", strings.ToLower(kind), name))
			continue
		}
		orphans = append(orphans, e)
	}
	if len(orphans) == 0 {
		return
	}
	kind, ns, name, how := "", "", "", ""
	for _, e := range orphans {
		if m := assignedRe.FindStringSubmatch(e.row.message); m != nil && e.row.reason == "Scheduled" {
			kind, ns, name, how = "Pod", m[1], m[2], "its Scheduled event names"
		}
	}
	for _, e := range orphans {
		for _, re := range podNamedRe {
			for _, m := range re.FindAllStringSubmatch(e.row.message, -1) {
				if name != "" && m[1] != name {
					continue
				}
				kind, name = "Pod", m[1]
				if how == "" {
					how = "its messages name"
				}
				if len(m) > 2 && m[2] != "" && ns == "" {
					ns = m[2]
				}
			}
		}
	}
	if name == "" {
		if pt := p.podAtAddress(orphans); pt != nil {
			kind, ns, name, how = "Pod", pt.pod.Namespace, pt.pod.Name, "its IP, which their messages name"
		}
	}
	if name == "" {
		var described, unready []string
		for _, pt := range p.pods {
			if pt.described {
				described = append(described, "Pod\x00"+pt.pod.Namespace+"\x00"+pt.pod.Name)
			} else if !readyPod(pt.pod) {
				unready = append(unready, "Pod\x00"+pt.pod.Namespace+"\x00"+pt.pod.Name)
			}
		}
		for _, d := range p.deps {
			described = append(described, "Deployment\x00"+d.Namespace+"\x00"+d.Name)
		}
		pick := ""
		switch {
		case len(described) == 1:
			pick, how = described[0], "the only object described in the paste"
		case len(described) == 0 && len(unready) == 1:
			pick, how = unready[0], "the only pod of the paste that is not running ready"
		case len(described) == 0 && len(unready) == 0 && len(p.pods) == 1:
			pick, how = "Pod\x00"+p.pods[0].pod.Namespace+"\x00"+p.pods[0].pod.Name, "the only pod of the paste"
		case len(described) == 0 && len(unready) > 1:
			if pt, n := p.evictedAlike(orphans); pt != nil {
				pick = "Pod\x00" + pt.pod.Namespace + "\x00" + pt.pod.Name
				how = fmt.Sprintf("the first of the %d pods the paste shows evicted from the node they name; which one they are about is not in the paste", n)
			} else if pt, n := p.pendingAlike(orphans); pt != nil {
				pick = "Pod\x00" + pt.pod.Namespace + "\x00" + pt.pod.Name
				how = fmt.Sprintf("the first of the %d Pending pods of the paste, which the scheduler's events are about; which one is not in the paste", n)
			}
		}
		if pick != "" {
			parts := strings.Split(pick, "\x00")
			kind, ns, name = parts[0], parts[1], parts[2]
		}
	}
	if name == "" && podEvents(orphans) {
		kind, name, how = "Pod", unnamed, "no name: the paste names none"
	}
	if name == "" {
		p.note("events were pasted without the object they are about: they are left out; paste the whole kubectl describe output")
		return
	}
	for _, e := range orphans {
		e.row.kind, e.row.name = kind, name
		if e.row.namespace == "" {
			e.row.namespace = ns
		}
	}
	p.note(fmt.Sprintf("events were pasted without their kubectl describe head: they are read as %s/%s's (%s)", strings.ToLower(kind), name, how))
}

// readyPod says a pod runs ready, as far as the paste shows.
func readyPod(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return pod.Status.Phase == corev1.PodRunning || pod.Status.Phase == corev1.PodSucceeded
}

// podEvents says every event is one the scheduler or a kubelet writes
// about a pod.
func podEvents(events []*eventText) bool {
	for _, e := range events {
		switch {
		case e.row.source == "kubelet", strings.HasSuffix(e.row.source, "scheduler"), e.row.source == "attachdetach-controller",
			e.row.source == "cluster-autoscaler", e.row.source == "karpenter",
			containerEvents[e.row.reason], kubeletReasons[e.row.reason], strings.HasPrefix(e.row.reason, "Failed"),
			strings.Contains(e.row.reason, "ScaleUp"):
		default:
			return false
		}
	}
	return true
}

// ipRe is an IPv4 address in a message (a probe's URL, a dial error).
var ipRe = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)

// podAtAddress is the one pod of the paste whose IP the events' messages
// name (the prober's "Get http://10.32.0.16:6080/livez"), nil for none
// or several.
func (p *parser) podAtAddress(events []*eventText) *podText {
	var found *podText
	for _, e := range events {
		for _, ip := range ipRe.FindAllString(e.row.message, -1) {
			for _, pt := range p.pods {
				if pt.pod.Status.PodIP != ip {
					continue
				}
				if found != nil && found != pt {
					return nil
				}
				found = pt
			}
		}
	}
	return found
}

// evictedAlike is, for events that are all the kubelet's Evicted, the
// first pod the paste lists evicted from the node they come from, and
// how many it lists so: the rows of one of their describes.
func (p *parser) evictedAlike(events []*eventText) (*podText, int) {
	host := ""
	for _, e := range events {
		if e.row.reason != "Evicted" || host != "" && e.row.host != host {
			return nil, 0
		}
		host = e.row.host
	}
	var first *podText
	n := 0
	for _, pt := range p.pods {
		if pt.pod.Status.Reason == "Evicted" && (host == "" || pt.pod.Spec.NodeName == host) {
			if first == nil {
				first = pt
			}
			n++
		}
	}
	return first, n
}

// pendingAlike is the first pasted pod the scheduler has not placed, and
// how many there are, when every event is the scheduler's and those pods
// are all of one owner (one name but its last part): events of one of
// them, it does not matter which for the verdict. Nil otherwise.
func (p *parser) pendingAlike(events []*eventText) (*podText, int) {
	for _, e := range events {
		if e.row.reason != "FailedScheduling" {
			return nil, 0
		}
	}
	var first *podText
	n, owner := 0, ""
	for _, pt := range p.pods {
		if pt.pod.Status.Phase != corev1.PodPending || pt.pod.Spec.NodeName != "" {
			continue
		}
		o := pt.pod.Name[:max(0, strings.LastIndex(pt.pod.Name, "-"))]
		if o == "" || owner != "" && o != owner {
			return nil, 0
		}
		if first == nil {
			first = pt
		}
		owner = o
		n++
	}
	return first, n
}
