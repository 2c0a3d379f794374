package kubelet

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestTCPRefusedIsARealDialError dials a loopback port nothing listens on
// and checks that the lab's TCP probe output is the same text.
func TestTCPRefusedIsARealDialError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err == nil {
		conn.Close()
		t.Skip("something listens on the port just closed; cannot observe a refused dial")
	}
	if got := tcpRefused("127.0.0.1", port); got != err.Error() {
		t.Errorf("tcpRefused = %q, a real dial says %q", got, err.Error())
	}
}

func TestUnhealthyMessages(t *testing.T) {
	web := &corev1.Container{Name: "web", Ports: []corev1.ContainerPort{{Name: "pg", ContainerPort: 5432}}}
	tests := []struct {
		name, kind string
		probe      corev1.ProbeHandler
		output     string
		want       string
	}{
		{"http", probeReadiness, corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}, "",
			"Readiness probe failed: HTTP probe failed with statuscode: 503"},
		{"exec", probeLiveness, corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
			"cat: can't open '/tmp/healthy': No such file or directory",
			"Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"},
		{"exec silent", probeLiveness, corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"test", "-f", "/tmp/healthy"}}}, "",
			"Liveness probe failed: "},
		{"tcp", probeReadiness, corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(5432)}}, "",
			"Readiness probe failed: dial tcp 10.244.1.2:5432: connect: connection refused"},
		{"tcp named port", probeReadiness, corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("pg")}}, "",
			"Readiness probe failed: dial tcp 10.244.1.2:5432: connect: connection refused"},
		{"tcp host", probeLiveness, corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Host: "10.96.0.10", Port: intstr.FromInt32(53)}}, "",
			"Liveness probe failed: dial tcp 10.96.0.10:53: connect: connection refused"},
		{"tcp unknown port name", probeReadiness, corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}, "",
			`Readiness probe errored and resulted in unknown state: port "http" not found`},
		{"grpc", probeReadiness, corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}, "",
			`Readiness probe failed: service unhealthy (responded with "NOT_SERVING")`},
	}
	for _, tt := range tests {
		p := &corev1.Probe{ProbeHandler: tt.probe}
		if diff := cmp.Diff(tt.want, unhealthyMessage(tt.kind, p, web, "10.244.1.2", tt.output, reachedServer)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWorkerExecLivenessAndTCPReadinessFail(t *testing.T) {
	pod := scheduledPod()
	pod.Annotations = map[string]string{
		"lab.kubectl-chain.io/web.liveness":     "fail",
		"lab.kubectl-chain.io/web.probe-output": "cat: can't open '/tmp/healthy': No such file or directory",
		"lab.kubectl-chain.io/proxy.readiness":  "fail",
	}
	pod.Spec.Containers[0].LivenessProbe = &corev1.Probe{PeriodSeconds: 2, FailureThreshold: 2,
		ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}}}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "registry.lab.internal/web:v2",
		ReadinessProbe: &corev1.Probe{PeriodSeconds: 2, ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(15021)}}}})
	client, sink, clk, ctx := startLabWorker(t, pod)
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if p.Status.ContainerStatuses[1].Ready {
		t.Error("proxy ready with a failing readiness probe")
	}
	step(t, ctx, clk, 2*time.Second) // the second liveness failure: killed and restarted
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.ContainerStatuses[0].RestartCount == 1 })

	var got []recordedEvent
	for _, e := range sink.list() {
		if e.Reason == "Unhealthy" || e.Reason == "Killing" {
			got = append(got, e)
		}
	}
	liveness := recordedEvent{"spec.containers{web}", "Warning", "Unhealthy", "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"}
	readiness := recordedEvent{"spec.containers{proxy}", "Warning", "Unhealthy", "Readiness probe failed: dial tcp 10.244.1.2:15021: connect: connection refused"}
	want := []recordedEvent{liveness, readiness, liveness,
		{"spec.containers{web}", "Normal", "Killing", "Container web failed liveness probe, will be restarted"}}
	if diff := cmp.Diff(want, got[:min(len(got), len(want))]); diff != "" {
		t.Errorf("probe events (-want +got):\n%s", diff)
	}
}

// TestReadyAfterHeals: chain-workload --ready-after 5s answers 503 on
// /ready for 5 s after it starts, then 200 (lab/cmd/chain-workload); the
// simulated kubelet fails the readiness probe until then and makes the
// container ready at the first probe after, as a real node does, where it
// once failed it forever.
func TestReadyAfterHeals(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].Image = "registry.lab.internal/web:v1"
	pod.Spec.Containers[0].Args = []string{"--ready-after", "5s"}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 2,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}}
	client, _, clk, ctx := startLabWorker(t, pod)
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if p.Status.ContainerStatuses[0].Ready {
		t.Fatal("ready before --ready-after passed")
	}
	// Probes at 2 and 4 s fail; the one at 6 s passes.
	step(t, ctx, clk, 2*time.Second)
	step(t, ctx, clk, 2*time.Second)
	p = waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if p.Status.ContainerStatuses[0].Ready {
		t.Fatal("ready 4 s after the start, with --ready-after 5s")
	}
	step(t, ctx, clk, 2*time.Second)
	waitPod(t, ctx, client, func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].Ready
	})
}

// TestStartDelayRefusesProbes: chain-workload --start-delay sleeps before
// it listens, so a real kubelet's HTTP probe is refused until then, in
// net/http's words around the dial's (the corpus's real Unhealthy events:
// 'Readiness probe failed: Get "http://10.0.171.162:8080/healthz": dial tcp
// 10.0.171.162:8080: connect: connection refused'); after it, the probe
// passes, and a program without --ready-after is ready.
func TestStartDelayRefusesProbes(t *testing.T) {
	c := &corev1.Container{Name: "web", Image: RegistryHost + "/web:v1", Args: []string{"--start-delay", "20s"},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}}}
	out, ok := programOutcome(c)
	if !ok || out.NotListening != 20*time.Second {
		t.Fatalf("outcome of --start-delay 20s: %+v", out)
	}
	start := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	cr := &containerRecord{out: out, startedAt: start}
	if !readinessFails(c, cr, start.Add(10*time.Second)) || readinessFails(c, cr, start.Add(21*time.Second)) {
		t.Error("readiness should fail during the start delay only")
	}
	got := unhealthyMessage(probeReadiness, c.ReadinessProbe, c, "10.244.1.2", "", reach(c.ReadinessProbe, c, cr, start.Add(time.Second)))
	want := `Readiness probe failed: Get "http://10.244.1.2:8080/ready": dial tcp 10.244.1.2:8080: connect: connection refused`
	if got != want {
		t.Errorf("message during the delay:\n got %q\nwant %q", got, want)
	}
}
