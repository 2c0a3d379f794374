package decode

import "regexp"

// The Normal events of a pod that goes well, as the kubelet and the
// scheduler word them (v1.37.2 pkg/kubelet/images/image_manager.go,
// kuberuntime_container.go, pkg/scheduler/schedule_one.go; before v1.31
// "Created container NAME" and "Started container NAME"): a step done,
// never a failure, whatever words of failure an image name holds.
var normalEvents = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`^Container image "[^"]*" already present on machine`), "the image is already on the node (the kubelet's Pulled event)"},
	{regexp.MustCompile(`^Successfully pulled image "[^"]*"`), "the image was pulled (the kubelet's Pulled event)"},
	{regexp.MustCompile(`^Container (created|started)$`), "the container was created or started (the kubelet's Created or Started event)"},
	{regexp.MustCompile(`^(Created|Started) container \S+$`), "the container was created or started (the kubelet's Created or Started event)"},
	{regexp.MustCompile(`^Successfully assigned \S+ to \S+$`), "the scheduler placed the pod on a node (its Scheduled event)"},
	{regexp.MustCompile(`^Stopping container \S+$`), "the kubelet stops a container, as asked (its Killing event; a failed probe says so in its own event)"},
}

// NormalEvent says what a Normal event's message reports, when it is one
// of a pod that goes well: explain then names no cause, and says so.
func NormalEvent(message string) (string, bool) {
	for _, n := range normalEvents {
		if n.re.MatchString(message) {
			return n.what, true
		}
	}
	return "", false
}
