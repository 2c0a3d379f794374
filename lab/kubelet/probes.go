package kubelet

import (
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// promoteReady marks started and ready the containers whose first startup
// and readiness probes are due (a healthy probe passes on its first run,
// after initialDelaySeconds) and returns when the next one is due. A
// container whose readiness probe fails is never promoted.
func (w *podWorker) promoteReady() (time.Time, bool) {
	if w.rec == nil {
		return time.Time{}, false
	}
	pod := w.pod()
	specs := map[string]*corev1.Container{}
	for i := range pod.Spec.InitContainers {
		specs[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
	}
	for i := range pod.Spec.Containers {
		specs[pod.Spec.Containers[i].Name] = &pod.Spec.Containers[i]
	}
	now := w.a.clock.Now()
	var next time.Time
	found := false
	for _, cr := range w.rec.readyCandidates() {
		spec := specs[cr.name]
		if spec == nil || cr.phase != containerRunning || (cr.started && cr.ready) {
			continue
		}
		at := cr.startedAt.Add(probeDelay(spec.StartupProbe) + probeDelay(spec.ReadinessProbe))
		if !now.Before(at) {
			cr.started = true
			cr.ready = !readinessFails(spec, cr, now)
			continue
		}
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found
}

func probeDelay(p *corev1.Probe) time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.InitialDelaySeconds) * time.Second
}

// probePeriod and failureThreshold apply the API defaults (10 s, 3) to
// probes built without defaulting (tests).
func probePeriod(p *corev1.Probe) time.Duration {
	if p.PeriodSeconds <= 0 {
		return 10 * time.Second
	}
	return time.Duration(p.PeriodSeconds) * time.Second
}

func failureThreshold(p *corev1.Probe) int32 {
	if p.FailureThreshold <= 0 {
		return 3
	}
	return p.FailureThreshold
}

// readinessFails and livenessFails: a probe that reaches no server of
// its protocol fails (reach); one that does fails as the container is
// asked: a container asked to fail its probe fails it whatever the handler
// (HTTP, exec, TCP socket, gRPC); one asked to be ready after a while
// (ReadyAfter) fails it until then.
func readinessFails(spec *corev1.Container, cr *containerRecord, now time.Time) bool {
	if reach(spec.ReadinessProbe, spec, cr, now) != reachedServer {
		return true
	}
	if cr.out.ReadyAfter > 0 && !now.Before(cr.startedAt.Add(cr.out.ReadyAfter)) {
		return false
	}
	return cr.out.ReadinessFails && spec.ReadinessProbe != nil
}

func livenessFails(spec *corev1.Container, cr *containerRecord, now time.Time) bool {
	return reach(spec.LivenessProbe, spec, cr, now) != reachedServer || cr.out.LivenessFails && spec.LivenessProbe != nil
}

// probe runs the container's failing probes that are due, as the kubelet's
// probe workers do every periodSeconds: each failure is an Unhealthy event
// (pkg/kubelet/prober/prober.go); failureThreshold liveness failures in a
// row make the kubelet kill the container (Killing "Container %s failed
// liveness probe, will be restarted"), which then restarts.
func (w *podWorker) probe(pod *corev1.Pod, spec *corev1.Container, cr *containerRecord, now time.Time) {
	ref := containerRef(pod, spec, cr.init)
	if readinessFails(spec, cr, now) {
		if !now.Before(cr.nextReadiness) {
			warn(w.a.events, ref, reasonUnhealthy, unhealthyMessage(probeReadiness, spec.ReadinessProbe, spec, w.rec.ip, cr.out.ProbeOutput, reach(spec.ReadinessProbe, spec, cr, now)))
			cr.ready = false
			cr.nextReadiness = now.Add(probePeriod(spec.ReadinessProbe))
		}
		w.after(cr.nextReadiness)
	}
	if livenessFails(spec, cr, now) {
		if !now.Before(cr.nextLiveness) {
			r := reach(spec.LivenessProbe, spec, cr, now)
			warn(w.a.events, ref, reasonUnhealthy, unhealthyMessage(probeLiveness, spec.LivenessProbe, spec, w.rec.ip, cr.out.ProbeOutput, r))
			cr.nextLiveness = now.Add(probePeriod(spec.LivenessProbe))
			// A probe the kubelet cannot run is no failure: the probe
			// worker throws its result away (pkg/kubelet/prober/worker.go
			// doProbe, "Prober error, throw away the result"), so it never
			// restarts the container; a readiness probe's result stays its
			// initial Failure.
			if r != reachedNoPort {
				cr.livenessFailures++
			}
			if cr.livenessFailures >= failureThreshold(spec.LivenessProbe) {
				emit(w.a.events, ref, reasonKilling, fmt.Sprintf(msgWillBeRestarted, fmt.Sprintf(msgFailedLiveness, spec.Name)))
				// The kubelet stops it as it stops any container: SIGTERM,
				// and SIGKILL (128+9) only past the grace period. The real
				// node showed chain-workload's own exit on SIGTERM (0,
				// Completed) where this once reported 137.
				code, reason := cr.out.Stop.Code, reasonCompleted
				if cr.out.Stop.After >= gracePeriod(pod) {
					code = 137
				}
				if code != 0 {
					reason = reasonError
				}
				cr.exit(now, code, reason)
				// The kill is the kubelet's own, in a sync that also
				// asks for the restart: it knows of the back-off at
				// once, and the next status shows CrashLoopBackOff.
				cr.killedBySync = true
				return
			}
		}
		w.after(cr.nextLiveness)
	}
}

// unhealthyMessage is the Unhealthy event of one failed run of probe p,
// which reached r: the prober's "%s probe failed: %s" with the output of
// the handler's prober (pkg/probe/...), or "%s probe errored ..." when the
// kubelet cannot even run it (a named port the container does not
// declare).
func unhealthyMessage(kind string, p *corev1.Probe, c *corev1.Container, podIP, execOutput string, r reached) string {
	var out string
	var err error
	if r == reachedServer || r == reachedNoPort {
		out, err = probeFailure(p, c, podIP, execOutput)
	} else {
		out, err = connFailure(p, c, podIP, r)
	}
	if err != nil {
		return fmt.Sprintf(msgProbeErrored, kind, probeUnknown, err)
	}
	return fmt.Sprintf(msgProbeFailed, kind, out)
}

// probeFailure is what each prober returns as the output of a failure:
//   - HTTP: the status line check of pkg/probe/http/http.go (503 here);
//   - exec: the command's combined output, verbatim (pkg/probe/exec/exec.go
//     returns string(data)): the pod's probe-output annotation, a line;
//   - TCP socket: err.Error() of the dial (pkg/probe/tcp/tcp.go), Go's own
//     "dial tcp IP:PORT: connect: connection refused";
//   - gRPC: the health service answering NOT_SERVING (pkg/probe/grpc/grpc.go).
//
// The error is the kubelet's when it cannot resolve the probe's port.
func probeFailure(p *corev1.Probe, c *corev1.Container, podIP, execOutput string) (string, error) {
	switch {
	case p.Exec != nil:
		if execOutput != "" && !strings.HasSuffix(execOutput, "\n") {
			execOutput += "\n"
		}
		return execOutput, nil
	case p.TCPSocket != nil:
		host, port, err := dialTarget(p.TCPSocket.Host, p.TCPSocket.Port, c, podIP)
		if err != nil {
			return "", err
		}
		return tcpRefused(host, port), nil
	case p.GRPC != nil:
		return fmt.Sprintf(msgGRPCUnhealthy, grpcNotServing), nil
	case p.HTTPGet != nil:
		if _, err := resolveContainerPort(p.HTTPGet.Port, c); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf(msgHTTPStatus, failingProbeCode), nil
}

// resolveContainerPort is pkg/probe/util.go's ResolveContainerPort: a port
// number, or the containerPort of the container's port of that name.
func resolveContainerPort(param intstr.IntOrString, c *corev1.Container) (int, error) {
	port := param.IntValue()
	if param.Type == intstr.String {
		port = 0
		for _, p := range c.Ports {
			if p.Name == param.StrVal {
				port = int(p.ContainerPort)
			}
		}
		if port == 0 {
			return 0, fmt.Errorf(msgPortNotFound, param.StrVal)
		}
	}
	if port > 0 && port < 65536 {
		return port, nil
	}
	return port, fmt.Errorf(msgInvalidPort, port)
}

// tcpRefused is the error Go's dialer returns when nothing listens on
// host:port, built from the same net.OpError a real dial returns (a test
// compares it with one); a host name that does not resolve fails the lookup
// first.
func tcpRefused(host string, port int) string {
	ip := net.ParseIP(host)
	if ip == nil {
		return (&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}).Error()
	}
	return (&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: ip, Port: port},
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}).Error()
}

// dialTarget is where an HTTP or TCP socket probe connects: its host, the
// pod's IP by default, and its port resolved against the container's.
func dialTarget(host string, port intstr.IntOrString, c *corev1.Container, podIP string) (string, int, error) {
	n, err := resolveContainerPort(port, c)
	if host == "" {
		host = podIP
	}
	return host, n, err
}
