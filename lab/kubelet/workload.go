package kubelet

import (
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
	env := func(key string) string {
		for _, e := range c.Env {
			if e.Name == key {
				return e.Value
			}
		}
		return ""
	}
	asked := len(c.Args) > 0
	for _, e := range c.Env {
		asked = asked || strings.HasPrefix(e.Name, "CHAIN_")
	}
	if !asked {
		return RunOutcome{}, false
	}
	out := RunOutcome{Ready: true}
	o, err := workload.Parse(c.Args, env)
	if err != nil {
		// the program prints its usage error and exits 2 at once
		out.Exit = &Exit{Code: 2, Reason: reasonError}
		return out, true
	}
	out.ReadinessFails, out.ReadyAfter = o.ReadyAfter > 0, o.ReadyAfter
	out.LivenessFails = o.Unhealthy
	if o.StartDelay > 0 && (o.HTTP != "" || o.TCP != "") {
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
