package paste

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// containerEvents are the kubelet's event reasons about one container
// (pkg/kubelet/events): an event of these with no fieldPath printed is
// about the container its message names, or the pod's only one.
var containerEvents = map[string]bool{
	"Pulling": true, "Pulled": true, "Failed": true, "BackOff": true, "Created": true, "Started": true,
	"Killing": true, "Unhealthy": true, "InspectFailed": true, "ErrImageNeverPull": true,
	"ProbeWarning": true, "FailedPostStartHook": true, "FailedPreStopHook": true, "ExceededGracePeriod": true,
}

// containersOfEvents ties the pod's events to its containers, names a
// get pods row's container from them, and gives a waiting container the
// message describe does not print, from the event the kubelet wrote
// beside it.
func (p *parser) containersOfEvents(pt *podText, events []*corev1.Event) {
	pod := pt.pod
	var mine []*corev1.Event
	for _, e := range events {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == pod.Name && (pod.Namespace == "" || e.InvolvedObject.Namespace == "" || e.InvolvedObject.Namespace == pod.Namespace) {
			mine = append(mine, e)
		}
	}
	if pt.unnamed {
		nameFromEvents(pod, mine)
	}
	for _, e := range mine {
		if e.InvolvedObject.FieldPath == "" && containerEvents[e.Reason] {
			e.InvolvedObject.FieldPath = fieldPathOf(pod, e.Message)
		}
	}
	imagesFromEvents(pod, mine)
	for _, sts := range []*[]corev1.ContainerStatus{&pod.Status.InitContainerStatuses, &pod.Status.ContainerStatuses} {
		init := sts == &pod.Status.InitContainerStatuses
		for i := range *sts {
			st := &(*sts)[i]
			if w := st.State.Waiting; w != nil && w.Message == "" {
				w.Message = waitingMessage(w.Reason, pathOf(init, st.Name), mine)
			}
		}
	}
}

// pathOf is the fieldPath of a container.
func pathOf(init bool, name string) string {
	if init {
		return "spec.initContainers{" + name + "}"
	}
	return "spec.containers{" + name + "}"
}

// fieldPathOf is the container an event's message names, by name or
// image, or the pod's only container; "" when the message names none
// of several.
func fieldPathOf(pod *corev1.Pod, msg string) string {
	var all []string
	named := ""
	check := func(init bool, c corev1.Container) {
		fp := pathOf(init, c.Name)
		all = append(all, fp)
		if c.Name != "" && namesContainer(msg, c.Name) || c.Image != "" && strings.Contains(msg, `"`+c.Image+`"`) {
			if named == "" {
				named = fp
			} else if named != fp {
				named = "-" // two containers: none
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		check(true, c)
	}
	for _, c := range pod.Spec.Containers {
		check(false, c)
	}
	switch {
	case named == "-":
		return ""
	case named != "":
		return named
	case len(all) == 1:
		return all[0]
	}
	return ""
}

// namesContainer says a message names the container: "container web",
// `container "web"`, "container=web", "containers{web}".
func namesContainer(msg, name string) bool {
	re := regexp.MustCompile(`(?i)containers?(?: with name)?[ =:"{]+` + regexp.QuoteMeta(name) + `(?:["} ,.:]|$)`)
	return re.MatchString(msg)
}

// nameFromEvents names the placeholder container (#1) of a pod the
// paste lists or knows by its events only, when it has one container and
// the events name one (Created container web, Started container web, a
// fieldPath), and gives it the image its pull events name.
func nameFromEvents(pod *corev1.Pod, events []*corev1.Event) {
	if len(pod.Spec.Containers) != 1 || !placeholder(pod.Spec.Containers[0].Name) || len(pod.Spec.InitContainers) > 0 {
		return
	}
	names, images := map[string]bool{}, map[string]bool{}
	for _, e := range events {
		if m := namedRe.FindStringSubmatch(e.Message); m != nil {
			names[m[1]+m[2]] = true
		}
		if m := pathNameRe.FindStringSubmatch(e.InvolvedObject.FieldPath); m != nil && !strings.Contains(e.InvolvedObject.FieldPath, "initContainers") {
			names[m[1]] = true
		}
		if m := imageRe.FindStringSubmatch(e.Message); m != nil {
			images[m[1]+m[2]] = true
		}
	}
	c := &pod.Spec.Containers[0]
	if len(images) == 1 && c.Image == "" {
		for i := range images {
			c.Image = i
		}
	}
	if len(names) != 1 {
		return
	}
	old := c.Name
	for n := range names {
		c.Name = n
	}
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == old {
			pod.Status.ContainerStatuses[i].Name = c.Name
			pod.Status.ContainerStatuses[i].Image = c.Image
		}
	}
}

var pullPrefixRe = regexp.MustCompile(`^Failed to pull image "[^"]*": `)

// imagesFromEvents gives each container the paste did not show the image
// of the image its pull events name, when they name one.
func imagesFromEvents(pod *corev1.Pod, events []*corev1.Event) {
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if c.Image != "" {
			continue
		}
		images := map[string]bool{}
		for _, e := range events {
			fp := e.InvolvedObject.FieldPath
			if fp != pathOf(false, c.Name) && !(fp == "" && len(pod.Spec.Containers) == 1) {
				continue
			}
			if m := imageRe.FindStringSubmatch(e.Message); m != nil {
				images[m[1]+m[2]] = true
			}
		}
		if len(images) != 1 {
			continue
		}
		for img := range images {
			c.Image = img
		}
		for j := range pod.Status.ContainerStatuses {
			if pod.Status.ContainerStatuses[j].Name == c.Name {
				pod.Status.ContainerStatuses[j].Image = c.Image
			}
		}
	}
}

// placeholder says a container's name is one the paste did not show.
func placeholder(name string) bool { return strings.HasPrefix(name, "#") }

// imageRe is the image a kubelet's pull event names.
var imageRe = regexp.MustCompile(`(?:Pulling|pull|pulling) image "([^"]+)"|^Container image "([^"]+)" already present`)

var (
	namedRe    = regexp.MustCompile(`(?:Created|Started|restarting failed) container:? "?([a-z0-9][-a-z0-9]*)"?|^Container ([a-z0-9][-a-z0-9]*) failed`)
	pathNameRe = regexp.MustCompile(`\{([^}]+)\}`)
)

// waitings say, for a waiting reason whose message describe leaves out,
// which event of the kubelet's carries it: its reason, the start of its
// message, and what to cut from it.
var waitings = map[string]struct{ reason, prefix, cut string }{
	"ErrImagePull":               {"Failed", "Failed to pull image", "pull"},
	"ImagePullBackOff":           {"BackOff", "Back-off pulling image", ""},
	"CrashLoopBackOff":           {"BackOff", "Back-off restarting failed container", ""},
	"CreateContainerConfigError": {"Failed", "Error: ", "Error: "},
	"CreateContainerError":       {"Failed", "Error: ", "Error: "},
	"RunContainerError":          {"Failed", "Error: ", "Error: "},
	"InvalidImageName":           {"InspectFailed", "", ""},
	"ErrImageNeverPull":          {"ErrImageNeverPull", "", ""},
}

// waitingMessage is the message of the newest event that goes with the
// waiting reason, about that container.
func waitingMessage(reason, fieldPath string, events []*corev1.Event) string {
	w, ok := waitings[reason]
	if !ok {
		return ""
	}
	var best *corev1.Event
	for _, e := range events {
		if e.Reason != w.reason || !strings.HasPrefix(e.Message, w.prefix) || e.InvolvedObject.FieldPath != "" && e.InvolvedObject.FieldPath != fieldPath {
			continue
		}
		if best == nil || !e.LastTimestamp.Before(&best.LastTimestamp) {
			best = e
		}
	}
	if best == nil {
		return ""
	}
	if w.cut == "pull" {
		// ErrImagePull's message is the pull error the event quotes
		// after 'Failed to pull image "IMAGE": '.
		if loc := pullPrefixRe.FindStringIndex(best.Message); loc != nil {
			return best.Message[loc[1]:]
		}
		return best.Message
	}
	return strings.TrimPrefix(best.Message, w.cut)
}
