package decode

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Explain decodes what a user pastes into causes, most telling first: an
// event, condition or container-state message, with or without the reason
// it came with; a bare reason word (OOMKilled); a `kubectl describe` block
// or `kubectl get events` lines; a `kubectl apply` error. It gives the cause
// the walk would give for the same evidence, and nothing for text no
// decoder knows.
func Explain(reason, message string) []Decoded {
	message = strings.TrimSpace(message)
	reason = strings.TrimSpace(reason)
	if items := pasted(message); len(items) > 0 {
		return unnamed(rank(explainItems(items)))
	}
	message = unwrapPaste(message)
	if r, m, ok := klogEvent(message); ok && (reason == "" || reason == r) {
		reason, message = r, m // an event as the controller manager logged it
	} else if r, m, ok := klogProbe(message); ok && reason == "" {
		reason, message = r, m // a probe's failure as the kubelet logged it
	}
	if r, rest, ok := leadingReason(message); ok && (reason == "" || reason == r) {
		reason, message = r, rest
	}
	return unnamed(rank(explainPair(reason, message)))
}

// unnamed tidies what a message without its object gives: the decoders
// name the container and image they were told, and a pasted message often
// tells neither, so an empty name and an empty detail go.
func unnamed(ds []Decoded) []Decoded {
	for i := range ds {
		ds[i].Summary = strings.NewReplacer(`container "" `, "container ", `image "" `, "image ").Replace(ds[i].Summary)
		ds[i].NextStep = Render(ds[i].NextStep, nil) // no pod, node or namespace to fill
		details := ds[i].Details[:0:0]
		for _, d := range ds[i].Details {
			if d.Value != "" {
				details = append(details, d)
			}
		}
		ds[i].Details = details
	}
	return ds
}

// explainPair decodes one reason and message: with the reason's own
// decoders first, then from the message's wording alone; the stronger
// answer wins, so a reason that says less than its message (Failed,
// BackOff) does not hide what the message names.
func explainPair(reason, message string) []Decoded {
	if _, ok := NormalEvent(message); ok {
		return nil // a step done: no cause, whatever its words
	}
	if r, m, ok := syncError(message); ok {
		// The kubelet's FailedSync of releases before 1.10 wraps the
		// reason and message it would report today.
		reason, message = r, m
	}
	var with []Decoded
	if reason != "" {
		with = explainReasoned(reason, message)
		if len(with) > 0 && strength(with[0].Cause) >= symptom {
			return with
		}
	}
	alone := explainMessage(message)
	if len(with) > 0 && with[0].Progressing && (len(alone) == 0 || strength(alone[0].Cause) < symptom) {
		// The reason's decoder knew its own progress wording (Pulling
		// "pulling image ..."): a guess from the words is no better.
		return with
	}
	if len(alone) > 0 && (len(with) == 0 || strength(alone[0].Cause) > strength(with[0].Cause) &&
		(family(alone[0].Cause) == family(with[0].Cause) || vagueReasons[reason])) {
		return alone
	}
	if len(with) > 0 {
		return with
	}
	if d, ok := ReasonWord(reason); ok {
		return []Decoded{d}
	}
	return nil
}

// explainTermination decodes a terminated state's reason and message: the
// runtime's words, or a termination the reason implies; nil when the
// message says nothing more than the reason (or is the container's own
// output), left to the kubelet's decoders.
func explainTermination(reason, message string) []Decoded {
	if message == "" || message == reason {
		return nil
	}
	if reason == "Error" || reason == "Completed" {
		// A terminated state's message is the container's own output
		// (FallbackToLogsOnError) or runc's: only the runtime's words
		// say more than the exit.
		if d, ok := ContainerStart(reason, message); ok {
			return []Decoded{d}
		}
		return nil
	}
	return []Decoded{Termination("", corev1.ContainerStateTerminated{Reason: reason, Message: message, ExitCode: exitOf(reason)})}
}

// exitOf is the exit code a terminated reason implies when none was pasted.
func exitOf(reason string) int32 {
	switch reason {
	case "OOMKilled":
		return 137
	case "ContainerCannotRun", "StartError":
		return 128
	case "Completed":
		return 0
	}
	return 1
}

// vagueReasons say nothing about which component wrote the message, so the
// message's own wording may name another family than the reason's decoder.
var vagueReasons = map[string]bool{"Failed": true, "FailedSync": true, "Error": true, "Warning": true, "BackOff": true,
	"Forbidden": true, "Invalid": true, "InternalError": true, "": true}

// Strength orders the causes a paste may decode to: a cause that names what
// to fix beats a symptom of it (a crash loop, a mount or rollout that timed
// out waiting for something else), which beats a family's catch-all; the
// waits that only say time ran out come last.
const (
	none = iota
	weak
	generic
	symptom
	strong
)

// symptoms are causes that say what happened but that a more specific
// cause beside them explains: the walk names the specific one too.
var symptoms = map[chain.CauseID]bool{CrashLoopBackOff: true, ReadinessProbeFailed: true, PodsNotCreated: true, PodNotReady: true}

// timeouts only say that something else did not happen in time, and
// progress says nothing failed (yet): any failure beside them says more.
var timeouts = map[chain.CauseID]bool{ProgressDeadlineExceeded: true, VolumeMountTimeout: true,
	ContainersCreating: true, ImagePulling: true, SchedulingPending: true, RolloutInProgress: true, ScaleUpTriggered: true}

func strength(id chain.CauseID) int {
	switch c, ok := Lookup(id); {
	case !ok:
		return none
	case timeouts[id]:
		return weak
	case c.Generic:
		return generic
	case symptoms[id]:
		return symptom
	}
	return strong
}

// Strong says a cause names what to fix: it is not a wait, a family's
// catch-all or a symptom. Where the walk holds a cause that is not, it
// looks further (the last termination, the kubelet's events), as explain
// prefers the message's wording to a reason that says less.
func Strong(id chain.CauseID) bool { return strength(id) >= strong }

// Stronger says a names more than b, in the order explain ranks a paste's
// causes: the walk lets a container's last termination replace a waiting
// reason that says less.
func Stronger(a, b chain.CauseID) bool { return strength(a) > strength(b) }

// Weak says a cause only says that something else did not happen in time
// (a volume mount that timed out) or is under way: the walk names it only
// when no failure beside it says more.
func Weak(id chain.CauseID) bool { return timeouts[id] }

// rank orders decoded causes strongest first, scheduler reasons by how
// many nodes gave them; ties keep their order.
func rank(ds []Decoded) []Decoded {
	sort.SliceStable(ds, func(i, j int) bool {
		si, sj := strength(ds[i].Cause), strength(ds[j].Cause)
		if si != sj {
			return si > sj
		}
		if before, ok := schedOverRefusal(ds[i].Cause, ds[j].Cause); ok {
			return before
		}
		before, _ := SchedBefore(WeightOf(ds[i]), WeightOf(ds[j]))
		return before
	})
	return ds
}

// schedOverRefusal: a scheduler reason that names what the pod lacks (a
// selector, a resource, a volume's zone) beats the cluster autoscaler's
// NotTriggerScaleUp beside it, which only adds that no new node would
// change it (issue 22: the same rule as the walk's).
func schedOverRefusal(a, b chain.CauseID) (before, decided bool) {
	specific := func(id chain.CauseID) bool { return family(id) == "scheduler" && id != UnschedulableOther }
	switch {
	case specific(a) && b == ScaleUpNotTriggered:
		return true, true
	case a == ScaleUpNotTriggered && specific(b):
		return false, true
	}
	return false, false
}
