package kubelet

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	grpcprobe "k8s.io/kubernetes/pkg/probe/grpc"
	httpprobe "k8s.io/kubernetes/pkg/probe/http"
	tcpprobe "k8s.io/kubernetes/pkg/probe/tcp"
)

// TestListeners reads chain-workload's listeners from a container's
// command line and environment, as the program does.
func TestListeners(t *testing.T) {
	const web = RegistryHost + "/web:v1"
	for _, tt := range []struct {
		name string
		c    corev1.Container
		want map[int]string
	}{
		{"defaults", corev1.Container{Image: web}, map[int]string{8080: "http"}},
		{"all three", corev1.Container{Image: web, Args: []string{"--http", ":9000", "--tcp", ":9001", "--grpc", "0.0.0.0:9090"}},
			map[int]string{9000: "http", 9001: "tcp", 9090: "grpc"}},
		{"no HTTP", corev1.Container{Image: web, Args: []string{"--http", ""}}, map[int]string{}},
		{"from the environment", corev1.Container{Image: web, Env: []corev1.EnvVar{{Name: "CHAIN_TCP", Value: ":5432"}}},
			map[int]string{8080: "http", 5432: "tcp"}},
		{"all addresses, IPv6", corev1.Container{Image: web, Args: []string{"--http", "[::]:8080"}}, map[int]string{8080: "http"}},
		{"loopback only", corev1.Container{Image: web, Args: []string{"--http", "127.0.0.1:8080", "--tcp", "localhost:9000"}}, map[int]string{}},
		{"the command runs the program", corev1.Container{Image: web, Command: []string{"/chain-workload", "--http", ":7000"}, Args: []string{"--tcp", ":7001"}},
			map[int]string{7000: "http", 7001: "tcp"}},
		{"a slow path serves the same program", corev1.Container{Image: RegistryHost + "/slow/30s/web:v1"}, map[int]string{8080: "http"}},
		{"the sandbox image pauses", corev1.Container{Image: RegistryHost + "/pause:lab", Args: []string{"--http", ":8080"}}, map[int]string{}},
		{"a service name: cannot tell", corev1.Container{Image: web, Args: []string{"--http", ":http"}}, nil},
		{"a $(VAR) the kubelet expands: cannot tell", corev1.Container{Image: web, Args: []string{"--http", ":$(PORT)"}}, nil},
		{"one port twice: the program exits", corev1.Container{Image: web, Args: []string{"--tcp", ":8080"}}, nil},
		{"flags the program refuses", corev1.Container{Image: web, Args: []string{"serve"}}, nil},
		{"another command", corev1.Container{Image: web, Command: []string{"sh", "-c", "true"}}, nil},
		{"no entrypoint", corev1.Container{Image: RegistryHost + "/web:no-entrypoint"}, nil},
		{"an image from elsewhere", corev1.Container{Image: "nginx:1"}, nil},
	} {
		if diff := cmp.Diff(tt.want, listeners(&tt.c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestProbesOnPorts plays probes against the ports chain-workload listens
// on: a port nothing listens on fails the probe for as long as the
// container runs, as on a real node, whatever the pod's annotations say.
func TestProbesOnPorts(t *testing.T) {
	const web, ip = RegistryHost + "/web:v1", "10.244.1.2"
	httpGet := func(port intstr.IntOrString) corev1.ProbeHandler {
		return corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: port}}
	}
	tcp := func(port int32) corev1.ProbeHandler {
		return corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}}
	}
	grpcOn := func(port int32) corev1.ProbeHandler { return corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: port}} }
	refusedHTTP := func(port int) string {
		return fmt.Sprintf(`Readiness probe failed: Get "http://%s:%d/ready": dial tcp %s:%d: connect: connection refused`, ip, port, ip, port)
	}
	grpcTimeout := func(port int, within string) string {
		return fmt.Sprintf(`Readiness probe failed: timeout: failed to connect service "%s:%d" within %s: context deadline exceeded`, ip, port, within)
	}
	all := []string{"--tcp", ":9000", "--grpc", ":9090"}
	tests := []struct {
		name    string
		c       corev1.Container
		probe   corev1.ProbeHandler
		timeout int32
		want    string // "" when the probe passes
	}{
		{"HTTP on the program's port", corev1.Container{Image: web}, httpGet(intstr.FromInt32(8080)), 0, ""},
		{"HTTP on a port nothing listens on", corev1.Container{Image: web}, httpGet(intstr.FromInt32(8081)), 0, refusedHTTP(8081)},
		{"HTTP on a named port nothing listens on", corev1.Container{Image: web, Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9102}}},
			httpGet(intstr.FromString("metrics")), 0, refusedHTTP(9102)},
		{"HTTP on a port name the container lacks", corev1.Container{Image: web}, httpGet(intstr.FromString("metrics")), 0,
			`Readiness probe errored and resulted in unknown state: port "metrics" not found`},
		{"HTTP on a port name an image from elsewhere lacks", corev1.Container{Image: "nginx:1"}, httpGet(intstr.FromString("metrics")), 0,
			`Readiness probe errored and resulted in unknown state: port "metrics" not found`},
		{"HTTP to another host", corev1.Container{Image: web},
			corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "10.96.0.10", Path: "/ready", Port: intstr.FromInt32(8081)}}, 0, ""},
		{"HTTP on an image from elsewhere", corev1.Container{Image: "nginx:1"}, httpGet(intstr.FromInt32(8081)), 0, ""},
		{"HTTP on the sandbox image", corev1.Container{Image: RegistryHost + "/pause:lab"}, httpGet(intstr.FromInt32(8080)), 0, refusedHTTP(8080)},
		{"HTTP on the program's moved port", corev1.Container{Image: web, Args: []string{"--http", ":9000"}}, httpGet(intstr.FromInt32(8080)), 0, refusedHTTP(8080)},
		{"HTTP on the TCP listener", corev1.Container{Image: web, Args: all}, httpGet(intstr.FromInt32(9000)), 0,
			`Readiness probe failed: Get "http://10.244.1.2:9000/ready": EOF`},
		{"HTTP on the gRPC listener", corev1.Container{Image: web, Args: all}, httpGet(intstr.FromInt32(9090)), 0,
			`Readiness probe failed: Get "http://10.244.1.2:9090/ready": net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x05\x00\x00@\x00"`},
		{"TCP on the HTTP listener", corev1.Container{Image: web}, tcp(8080), 0, ""},
		{"TCP on the TCP listener", corev1.Container{Image: web, Args: all}, tcp(9000), 0, ""},
		{"TCP on the gRPC listener", corev1.Container{Image: web, Args: all}, tcp(9090), 0, ""},
		{"TCP on a port nothing listens on", corev1.Container{Image: web, Args: all}, tcp(5432), 0,
			"Readiness probe failed: dial tcp 10.244.1.2:5432: connect: connection refused"},
		{"gRPC on the gRPC listener", corev1.Container{Image: web, Args: all}, grpcOn(9090), 0, ""},
		{"gRPC on a port nothing listens on", corev1.Container{Image: web}, grpcOn(9090), 0, grpcTimeout(9090, "1s")},
		{"gRPC on the HTTP listener, a 3 s timeout", corev1.Container{Image: web}, grpcOn(8080), 3, grpcTimeout(8080, "3s")},
		{"gRPC on the TCP listener", corev1.Container{Image: web, Args: all}, grpcOn(9000), 0, grpcTimeout(9000, "1s")},
	}
	start := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{}
	for _, tt := range tests {
		c := tt.c
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: tt.probe, TimeoutSeconds: tt.timeout}
		c.LivenessProbe = c.ReadinessProbe
		cr := &containerRecord{out: Lab{}.Run(pod, &c), startedAt: start}
		now := start.Add(time.Hour)
		got := ""
		if readinessFails(&c, cr, now) {
			got = unhealthyMessage(probeReadiness, c.ReadinessProbe, &c, ip, "", reach(c.ReadinessProbe, &c, cr, now))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if livenessFails(&c, cr, now) != (tt.want != "") {
			t.Errorf("%s: the liveness probe does not fail as the readiness probe does", tt.name)
		}
	}
}

// TestConnFailuresAreTheUpstreamProbers runs the kubelet's own probers
// (k8s.io/kubernetes pkg/probe) against what chain-workload opens (an HTTP
// server, a TCP socket that accepts and closes, the gRPC health service)
// and against a port nothing listens on, and checks that the lab words
// each failure as they do.
func TestConnFailuresAreTheUpstreamProbers(t *testing.T) {
	listen := func() net.Listener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	port := func(l net.Listener) int { return l.Addr().(*net.TCPAddr).Port }
	hl, tl, gl, closed := listen(), listen(), listen(), listen()
	go http.Serve(hl, http.NewServeMux()) //nolint:errcheck // ends with the test
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go gs.Serve(gl) //nolint:errcheck // ends with the test
	t.Cleanup(gs.Stop)
	nothing := port(closed)
	closed.Close()
	listens := map[int]string{port(hl): "http", port(tl): "tcp", port(gl): "grpc"}

	const ip = "127.0.0.1"
	c := &corev1.Container{Image: RegistryHost + "/web:v1"}
	httpRun := func(p int) string {
		req, err := httpprobe.NewRequestForHTTPGetAction(&corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt(p)}, c, ip, "probe")
		if err != nil {
			t.Fatal(err)
		}
		_, out, _ := httpprobe.New(false).Probe(req, time.Second)
		return out
	}
	grpcRun := func(p int) string {
		_, out, _ := grpcprobe.New().Probe(ip, "", p, time.Second, grpcprobe.ProbeOptions{})
		return out
	}
	// Races of a busy machine: a request that lands before the TCP
	// listener's close is reset, and a close that lands before the request
	// is written is net/http's "server closed idle connection"; the gRPC
	// server's settings that land before the request is written are
	// "unsolicited" to net/http.
	reset := regexp.MustCompile(`^Get "[^"]+": (read tcp 127\.0\.0\.1:\d+->127\.0\.0\.1:\d+: read: connection reset by peer|http: server closed idle connection)$`)
	unsolicited := regexp.MustCompile(`^Get "[^"]+": readLoopPeekFailLocked: %!w\(<nil>\)$`)
	tests := []struct {
		name  string
		probe corev1.ProbeHandler
		run   func() string
		or    *regexp.Regexp
	}{
		{"HTTP, nothing listens", corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt(nothing)}},
			func() string { return httpRun(nothing) }, nil},
		{"HTTP on the TCP listener", corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt(port(tl))}},
			func() string { return httpRun(port(tl)) }, reset},
		{"HTTP on the gRPC listener", corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt(port(gl))}},
			func() string { return httpRun(port(gl)) }, unsolicited},
		{"TCP, nothing listens", corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt(nothing)}},
			func() string { _, out, _ := tcpprobe.New().Probe(ip, nothing, time.Second); return out }, nil},
		{"gRPC, nothing listens", corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: int32(nothing)}},
			func() string { return grpcRun(nothing) }, nil},
		{"gRPC on the HTTP listener", corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: int32(port(hl))}},
			func() string { return grpcRun(port(hl)) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &corev1.Probe{ProbeHandler: tt.probe, TimeoutSeconds: 1}
			cr := &containerRecord{out: RunOutcome{Listens: listens}}
			r := reach(p, c, cr, time.Time{})
			if r == reachedServer {
				t.Fatal("the probe reaches a server of its protocol")
			}
			want, err := connFailure(p, c, ip, r)
			if err != nil {
				t.Fatal(err)
			}
			// The races are rare: a few runs show the common wording.
			for i := 0; ; i++ {
				got := tt.run()
				if got == want {
					break
				}
				if tt.or == nil || !tt.or.MatchString(got) || i == 20 {
					t.Fatalf("the lab says %s\nthe kubelet's prober says %s", strconv.Quote(want), strconv.Quote(got))
				}
			}
		})
	}
}

// TestWorkerProbesOnWrongPorts: a readiness probe on a port the program
// does not listen on keeps the container unready with the real prober's
// refusal; a liveness probe there restarts it; a liveness probe on a port
// name the container lacks errors, and the kubelet never counts that a
// failure.
func TestWorkerProbesOnWrongPorts(t *testing.T) {
	pod := scheduledPod()
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 2,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8081)}}}
	pod.Spec.Containers = append(pod.Spec.Containers,
		corev1.Container{Name: "cache", Image: RegistryHost + "/web:v2", Args: []string{"--tcp", ":6379"},
			LivenessProbe: &corev1.Probe{PeriodSeconds: 2, FailureThreshold: 2,
				ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(6380)}}}},
		corev1.Container{Name: "metrics", Image: RegistryHost + "/web:v2",
			LivenessProbe: &corev1.Probe{PeriodSeconds: 2, FailureThreshold: 1,
				ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")}}}})
	client, sink, clk, ctx := startLabWorker(t, pod)
	status := func(p *corev1.Pod, name string) corev1.ContainerStatus {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == name {
				return cs
			}
		}
		return corev1.ContainerStatus{}
	}
	p := waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if status(p, "web").Ready {
		t.Error("web ready with its readiness probe on a port nothing listens on")
	}
	step(t, ctx, clk, 2*time.Second) // cache's second liveness failure: killed and restarted
	waitPod(t, ctx, client, func(p *corev1.Pod) bool { return status(p, "cache").RestartCount == 1 })
	step(t, ctx, clk, 2*time.Second)
	step(t, ctx, clk, 2*time.Second)
	p = waitPod(t, ctx, client, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	if n := status(p, "metrics").RestartCount; n != 0 {
		t.Errorf("metrics restarted %d times for a probe the kubelet cannot run", n)
	}
	if status(p, "web").Ready {
		t.Error("web turned ready")
	}
	want := map[recordedEvent]bool{
		{"spec.containers{web}", "Warning", "Unhealthy", `Readiness probe failed: Get "http://10.244.1.2:8081/ready": dial tcp 10.244.1.2:8081: connect: connection refused`}: true,
		{"spec.containers{cache}", "Warning", "Unhealthy", "Liveness probe failed: dial tcp 10.244.1.2:6380: connect: connection refused"}:                                    true,
		{"spec.containers{cache}", "Normal", "Killing", "Container cache failed liveness probe, will be restarted"}:                                                           true,
		{"spec.containers{metrics}", "Warning", "Unhealthy", `Liveness probe errored and resulted in unknown state: port "metrics" not found`}:                                true,
	}
	got := map[recordedEvent]bool{}
	for _, e := range sink.list() {
		if e.Reason == "Unhealthy" || e.Reason == "Killing" {
			got[e] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe events (-want +got):\n%s", diff)
	}
}
