package kubelet

import (
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/lab/workload"
)

// workloadPath is where the program is in every lab image
// (lab/registry WorkloadAt).
const workloadPath = "/chain-workload"

// programOutcome plays chain-workload, the program of every image of the
// lab's registry, as its flags ask (the container's args, then its
// CHAIN_* environment): what the program does on a real node, the
// simulated kubelet reports. ok is false for a container that runs no lab
// image, or overrides its command, or gives it no flag: then the pod's
// annotations decide (lab.go).
func programOutcome(c *corev1.Container) (RunOutcome, bool) {
	host, _, _ := splitImage(c.Image)
	if host != RegistryHost || len(c.Command) > 0 {
		return RunOutcome{}, false
	}
	asked := len(c.Args) > 0
	for _, e := range c.Env {
		asked = asked || strings.HasPrefix(e.Name, "CHAIN_")
	}
	if !asked {
		return RunOutcome{}, false
	}
	out := RunOutcome{Ready: true}
	o, err := workload.Parse(c.Args, containerEnv(c))
	if err != nil {
		// the program prints its usage error and exits 2 at once
		out.Exit = &Exit{Code: 2, Reason: reasonError}
		return out, true
	}
	out.ReadinessFails, out.ReadyAfter = o.ReadyAfter > 0, o.ReadyAfter
	out.LivenessFails = o.Unhealthy
	if o.StartDelay > 0 {
		out.NotListening = o.StartDelay
	}
	if o.WriteMB > 0 {
		out.Write = &Write{Bytes: int64(o.WriteMB) << 20, Path: o.To, After: o.StartDelay}
	}
	if o.IgnoreTerm {
		out.Stop.After = 24 * time.Hour // SIGKILL at the end of the grace period
	}
	if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && o.AllocMB > 0 {
		// It allocates AllocMB at once and then every second; the memory
		// cgroup kills it with the allocation that passes the limit.
		per := int64(o.AllocMB) << 20
		n := (limit.Value() + per - 1) / per
		if n < 1 {
			n = 1
		}
		out.Exit = &Exit{After: o.StartDelay + time.Duration(n-1)*time.Second, Code: 137, Reason: reasonOOMKilled}
		return out, true
	}
	if o.Exit >= 0 {
		reason := reasonError
		if o.Exit == 0 {
			reason = reasonCompleted
		}
		out.Exit = &Exit{After: o.StartDelay + o.After, Code: int32(o.Exit), Reason: reason}
	}
	return out, true
}

// containerEnv looks up the container's environment variables given by
// value (the program's CHAIN_* flags).
func containerEnv(c *corev1.Container) func(string) string {
	return func(key string) string {
		for _, e := range c.Env {
			if e.Name == key {
				return e.Value
			}
		}
		return ""
	}
}

// programArgs is chain-workload's command line in container c, the
// arguments after the program's name; false when the container does not
// run it: an image from outside the lab's registry, or one whose
// entrypoint is missing, or a command the lab's images do not hold
// (startError). The runtime runs the container's command, else the
// image's entrypoint, followed by the container's args (the lab's images
// have none of their own); the sandbox image's entrypoint is
// "/chain-workload pause" (lab/registry Catalogue).
func programArgs(c *corev1.Container) ([]string, bool) {
	host, repo, ref := splitImage(c.Image)
	if host != RegistryHost {
		return nil, false
	}
	var args []string
	switch {
	case len(c.Command) > 0 && c.Command[0] != workloadPath:
		return nil, false
	case len(c.Command) > 0:
		args = c.Command[1:]
	case repo == "web" && ref == noEntrypointTag:
		return nil, false
	case path.Base(repo) == "pause":
		args = []string{"pause"}
	}
	return append(slices.Clone(args), c.Args...), true
}

// listeners are the ports chain-workload listens on in container c, each
// with what answers there (workload.ServesHTTP, ...): its command line
// and CHAIN_* environment read as the program reads them (lab/workload).
// "pause" listens on nothing. Nil when the kubelet cannot tell: the
// container does not run the program, or the program refuses its flags
// (it exits at once, programOutcome), or an address's port is not a
// number (a service name, a $(VAR) the kubelet expands), or two
// listeners share a port (the second net.Listen fails and the program
// exits 1, which programOutcome does not play). An address on a loopback
// host is left out: it accepts no connection on the pod's IP, where
// probes dial.
func listeners(c *corev1.Container) map[int]string {
	args, ok := programArgs(c)
	if !ok {
		return nil
	}
	if len(args) > 0 && args[0] == "pause" {
		return map[int]string{}
	}
	o, err := workload.Parse(args, containerEnv(c))
	if err != nil {
		return nil
	}
	out, seen := map[int]string{}, map[int]bool{}
	for _, l := range o.Listeners() {
		host, port, err := net.SplitHostPort(l.Addr)
		if err != nil {
			return nil
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || seen[n] {
			return nil
		}
		if n == 0 {
			continue // a port the system picks, which no probe can name
		}
		seen[n] = true
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			continue
		}
		out[n] = l.Serves
	}
	return out
}
