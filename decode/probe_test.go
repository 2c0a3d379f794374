package decode

import (
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// klProbeCases are the prober's Unhealthy events and the kills they cause.
// Event formats: pkg/kubelet/prober/prober.go "%s probe failed: %s" and "%s
// probe errored and resulted in %s state: %s", with probeType.String()
// "Readiness"/"Liveness"/"Startup" (prober_manager.go).
var klProbeCases = []klCase{
	{
		// pkg/probe/http/http.go: "HTTP probe failed with statuscode: %d"
		name: "readiness http status", reason: "Unhealthy",
		message: `Readiness probe failed: HTTP probe failed with statuscode: 503`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe got HTTP 503`,
			NextStep: `the endpoint answers 503: check the app (kubectl logs {POD}), or fix spec.template.spec.containers[].readinessProbe.httpGet path/port`,
			Details:  []chain.Detail{{Key: "probe", Value: "readiness"}, {Key: "failure", Value: "http-status"}, {Key: "statusCode", Value: "503"}},
		},
	},
	{
		// pkg/probe/http/http.go returns err.Error() of Go's HTTP client: `Get "%s": dial tcp %s: connect: connection refused`
		name: "liveness connection refused", reason: "Unhealthy",
		message: `Liveness probe failed: Get "http://10.244.1.7:8080/healthz": dial tcp 10.244.1.7:8080: connect: connection refused`,
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `liveness probe: connection refused on port 8080 /healthz`,
			NextStep: `nothing listens on the probed port: make spec.template.spec.containers[].livenessProbe's port match the containerPort the app listens on (and the app listen on the pod IP, not 127.0.0.1); if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "target", Value: "http://10.244.1.7:8080/healthz"}, {Key: "failure", Value: "connection-refused"}},
		},
	},
	{
		// Go net/http client.go: " (Client.Timeout exceeded while awaiting headers)" after the context error.
		name: "readiness timeout", reason: "Unhealthy",
		message: `Readiness probe failed: Get "http://10.244.1.7:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe timed out on port 8080 /ready`,
			NextStep: `the probe did not finish in time: raise spec.template.spec.containers[].readinessProbe.timeoutSeconds or make the probed endpoint or command answer faster`,
			Details:  []chain.Detail{{Key: "probe", Value: "readiness"}, {Key: "target", Value: "http://10.244.1.7:8080/ready"}, {Key: "failure", Value: "timeout"}},
		},
	},
	{
		// pkg/probe/tcp/tcp.go returns err.Error() of net.DialTimeout: "dial tcp %s: connect: connection refused"
		name: "startup tcp refused", reason: "Unhealthy",
		message: `Startup probe failed: dial tcp 10.244.1.7:5432: connect: connection refused`,
		ok:      true,
		want: Decoded{
			Cause:    StartupProbeFailed,
			Summary:  `startup probe: connection refused on port 5432`,
			NextStep: `nothing listens on the probed port: make spec.template.spec.containers[].startupProbe's port match the containerPort the app listens on (and the app listen on the pod IP, not 127.0.0.1); if the app only starts slowly, raise startupProbe.failureThreshold x periodSeconds`,
			Details:  []chain.Detail{{Key: "probe", Value: "startup"}, {Key: "target", Value: "10.244.1.7:5432"}, {Key: "failure", Value: "connection-refused"}},
		},
	},
	{
		// k8s.io/cri-client pkg/remote_runtime.go: "%w: %q timed out after %s" with ErrCommandTimedOut
		// "command timed out"; pkg/probe/exec/exec.go returns err.Error() as the output.
		name: "liveness exec timeout", reason: "Unhealthy",
		message: `Liveness probe failed: command timed out: "pg_isready -U app" timed out after 1s`,
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `liveness probe timed out`,
			NextStep: `the probe did not finish in time: raise spec.template.spec.containers[].livenessProbe.timeoutSeconds or make the probed endpoint or command answer faster; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "failure", Value: "timeout"}},
		},
	},
	{
		// pkg/probe/exec/exec.go: the command's output; this one is the Kubernetes docs' exec liveness example (busybox cat).
		name: "liveness exec output", reason: "Unhealthy",
		message: `Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory`,
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].livenessProbe or the app; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "output", Value: "cat: can't open '/tmp/healthy': No such file or directory"}},
		},
	},
	{
		// pkg/probe/exec/exec.go returns the command's output as is, newline included (as the lab writes it).
		name: "liveness exec output with its newline", reason: "Unhealthy",
		message: "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].livenessProbe or the app; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "output", Value: "cat: can't open '/tmp/healthy': No such file or directory"}},
		},
	},
	{
		// pkg/probe/exec/exec.go: a command that exits 1 printing nothing ("test -f /tmp/healthy").
		name: "liveness exec silent", reason: "Unhealthy",
		message: "Liveness probe failed: ",
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `liveness probe failed`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].livenessProbe or the app; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}},
		},
	},
	{
		// pkg/probe/tcp/tcp.go: err.Error() of the dial, as the lab's readiness-tcp-failing scenario writes it.
		name: "readiness tcp refused", reason: "Unhealthy",
		message: `Readiness probe failed: dial tcp 10.244.1.2:5432: connect: connection refused`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe: connection refused on port 5432`,
			NextStep: `nothing listens on the probed port: make spec.template.spec.containers[].readinessProbe's port match the containerPort the app listens on (and the app listen on the pod IP, not 127.0.0.1)`,
			Details:  []chain.Detail{{Key: "probe", Value: "readiness"}, {Key: "target", Value: "10.244.1.2:5432"}, {Key: "failure", Value: "connection-refused"}},
		},
	},
	{
		// prober.go "%s probe errored and resulted in %s state: %s" with pkg/probe/util.go's `port %q not found`.
		name: "readiness errored on a port name", reason: "Unhealthy",
		message: `Readiness probe errored and resulted in unknown state: port "http" not found`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe could not run: port "http" not found`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].readinessProbe or the app`,
			Details:  []chain.Detail{{Key: "probe", Value: "readiness"}, {Key: "output", Value: `port "http" not found`}},
		},
	},
	{
		// pkg/probe/grpc/grpc.go: "service unhealthy (responded with %q)"
		name: "grpc not serving", reason: "Unhealthy",
		message: `Readiness probe failed: service unhealthy (responded with "NOT_SERVING")`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe failed: service unhealthy (responded with "NOT_SERVING")`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].readinessProbe or the app`,
			Details:  []chain.Detail{{Key: "probe", Value: "readiness"}, {Key: "output", Value: `service unhealthy (responded with "NOT_SERVING")`}},
		},
	},
	{
		// prober.go "%s probe errored and resulted in %s state: %s" with probe.Unknown "unknown"; containerd
		// internal/cri/server/container_execsync.go "failed to exec in container: %w", "container is in %s state"
		name: "readiness errored", reason: "Unhealthy",
		message: `Readiness probe errored and resulted in unknown state: rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state`,
		ok:      true,
		want: Decoded{
			Cause:    ReadinessProbeFailed,
			Summary:  `readiness probe could not run: rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state`,
			NextStep: `run the probe by hand (kubectl exec {POD} -- ...) and fix spec.template.spec.containers[].readinessProbe or the app`,
			Details: []chain.Detail{{Key: "probe", Value: "readiness"},
				{Key: "output", Value: `rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state`}},
		},
	},
	{
		// pkg/kubelet/kuberuntime/kuberuntime_manager.go: "Container %s failed liveness probe" + ", will be restarted"
		name: "killed for liveness", reason: "Killing",
		message: `Container web failed liveness probe, will be restarted`,
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `container "web" is restarted because its liveness probe fails`,
			NextStep: `see the Unhealthy events for the probe's output, then fix spec.template.spec.containers[web].livenessProbe or the app; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "container", Value: "web"}},
		},
	},
	{
		// kuberuntime_manager.go: "Container %s failed startup probe" + ", will be restarted"
		name: "killed for startup", reason: "Killing",
		message: `Container web failed startup probe, will be restarted`,
		ok:      true,
		want: Decoded{
			Cause:    StartupProbeFailed,
			Summary:  `container "web" is restarted because its startup probe fails`,
			NextStep: `see the Unhealthy events for the probe's output, then fix spec.template.spec.containers[web].startupProbe or the app; if the app only starts slowly, raise startupProbe.failureThreshold x periodSeconds`,
			Details:  []chain.Detail{{Key: "probe", Value: "startup"}, {Key: "container", Value: "web"}},
		},
	},
	{
		// pkg/kubelet/kuberuntime/kuberuntime_container.go: "Init container %s failed liveness probe" (sidecars)
		name: "sidecar killed for liveness", reason: "Killing",
		message: `Init container proxy failed liveness probe`,
		ok:      true,
		want: Decoded{
			Cause:    LivenessProbeFailed,
			Summary:  `container "proxy" is restarted because its liveness probe fails`,
			NextStep: `see the Unhealthy events for the probe's output, then fix spec.template.spec.initContainers[proxy].livenessProbe or the app; if the app only starts slowly, add or lengthen a startupProbe`,
			Details:  []chain.Detail{{Key: "probe", Value: "liveness"}, {Key: "container", Value: "proxy"}},
		},
	},
	{
		// kuberuntime_container.go killContainer: "Stopping container %s" (a normal stop)
		name: "plain stop", reason: "Killing",
		message: `Stopping container web`,
	},
	{
		// prober.go: events.ContainerProbeWarning, "%s probe warning: %s"; http.go
		// "Probe terminated redirects, Response body: %v" (a success)
		name: "probe warning", reason: "ProbeWarning",
		message: `Readiness probe warning: Probe terminated redirects, Response body: `,
	},
}

func TestProbe(t *testing.T) {
	klRun(t, Probe, klProbeCases)
}

func FuzzProbe(f *testing.F) {
	klSeed(f, klProbeCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, Probe, probeCauses, reason, message)
	})
}

// klHookCases are the lifecycle hook failures.
var klHookCases = []klCase{
	{
		// pkg/kubelet/kuberuntime/kuberuntime_container.go: events.FailedPostStartHook, "PostStartHook failed"
		name: "postStart event", reason: "FailedPostStartHook",
		message: `PostStartHook failed`,
		ok:      true,
		want:    Decoded{Cause: PostStartHookFailed, Summary: "postStart hook failed"},
	},
	{
		// kuberuntime_container.go executePreStopHook: events.FailedPreStopHook, "PreStopHook failed"
		name: "preStop event", reason: "FailedPreStopHook",
		message: `PreStopHook failed`,
		ok:      true,
		want:    Decoded{Cause: PreStopHookFailed, Summary: "preStop hook failed"},
	},
	{
		// pkg/kubelet/lifecycle/handlers.go: "Exec lifecycle hook (%v) for Container %q in Pod %q failed -
		// error: %v, message: %q"; k8s.io/cri-client pkg/remote_runtime.go "command '%s' exited with %d: %s";
		// the waiting reason is kuberuntime's ErrPostStartHook "PostStartHookError".
		name: "postStart exec, waiting message", reason: "PostStartHookError",
		message: `Exec lifecycle hook ([/bin/sh -c /app/warmup.sh]) for Container "web" in Pod "` + klPod + `" failed - error: command '/bin/sh -c /app/warmup.sh' exited with 1: , message: ""`,
		ok:      true,
		want: Decoded{
			Cause:    PostStartHookFailed,
			Summary:  `postStart hook of container "web" failed: command '/bin/sh -c /app/warmup.sh' exited with 1`,
			NextStep: `fix spec.template.spec.containers[web].lifecycle.postStart (command [/bin/sh -c /app/warmup.sh])`,
			Details: []chain.Detail{
				{Key: "container", Value: "web"}, {Key: "hook", Value: "postStart"}, {Key: "handler", Value: "exec"},
				{Key: "action", Value: "[/bin/sh -c /app/warmup.sh]"}, {Key: "exitCode", Value: "1"},
			},
		},
	},
	{
		// Same formats; the command printed to stderr, which is both in the error and in the output.
		name: "preStop exec with output", reason: "FailedPreStopHook",
		message: `Exec lifecycle hook ([/bin/sh -c nginx -s quit]) for Container "web" in Pod "` + klPod + `" failed - error: command '/bin/sh -c nginx -s quit' exited with 1: nginx: [error] open() "/run/nginx.pid" failed (2: No such file or directory)` + "\n" + `, message: "nginx: [error] open() \"/run/nginx.pid\" failed (2: No such file or directory)\n"`,
		ok:      true,
		want: Decoded{
			Cause:    PreStopHookFailed,
			Summary:  `preStop hook of container "web" failed: command '/bin/sh -c nginx -s quit' exited with 1: nginx: [error] open() "/run/nginx.pid" failed (2: No such file or directory)`,
			NextStep: `fix spec.template.spec.containers[web].lifecycle.preStop (command [/bin/sh -c nginx -s quit])`,
			Details: []chain.Detail{
				{Key: "container", Value: "web"}, {Key: "hook", Value: "preStop"}, {Key: "handler", Value: "exec"},
				{Key: "action", Value: "[/bin/sh -c nginx -s quit]"}, {Key: "exitCode", Value: "1"},
				{Key: "output", Value: `nginx: [error] open() "/run/nginx.pid" failed (2: No such file or directory)`},
			},
		},
	},
	{
		// handlers.go: "HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v" with Go's HTTP client error.
		name: "postStart http, waiting message", reason: "PostStartHookError",
		message: `HTTP lifecycle hook (/warmup) for Container "web" in Pod "` + klPod + `" failed - error: Get "http://10.244.1.7:8080/warmup": dial tcp 10.244.1.7:8080: connect: connection refused`,
		ok:      true,
		want: Decoded{
			Cause:    PostStartHookFailed,
			Summary:  `postStart hook of container "web" failed: Get "http://10.244.1.7:8080/warmup": dial tcp 10.244.1.7:8080: connect: connection refused`,
			NextStep: `fix spec.template.spec.containers[web].lifecycle.postStart (HTTP path /warmup)`,
			Details: []chain.Detail{
				{Key: "container", Value: "web"}, {Key: "hook", Value: "postStart"}, {Key: "handler", Value: "http"},
				{Key: "action", Value: "/warmup"},
			},
		},
	},
	{
		// kuberuntime_container.go: killContainer(..., "FailedPostStartHook", reasonFailedPostStartHook, ...)
		// records events.KillingContainer with that message.
		name: "kill after postStart", reason: "Killing",
		message: `FailedPostStartHook`,
		ok:      true,
		want:    Decoded{Cause: PostStartHookFailed, Summary: "postStart hook failed"},
	},
	{
		name: "liveness kill is not a hook", reason: "Killing",
		message: `Container web failed liveness probe, will be restarted`,
	},
}

func TestHook(t *testing.T) {
	klRun(t, Hook, klHookCases)
}

func FuzzHook(f *testing.F) {
	klSeed(f, klHookCases)
	f.Fuzz(func(t *testing.T, reason, message string) {
		klCheck(t, Hook, hookCauses, reason, message)
	})
}
