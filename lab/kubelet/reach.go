package kubelet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/lab/workload"
)

// reached is what one run of an HTTP, TCP socket or gRPC probe meets on
// its port, before any answer the program's flags or the pod's
// annotations choose.
type reached int

const (
	// reachedServer: a server of the probe's protocol, or a port the
	// kubelet cannot judge (a program it does not know, another host);
	// the container's outcome decides the probe. An exec probe too.
	reachedServer reached = iota
	// reachedNothing: nothing listens on the port (or not yet, during a
	// start delay). HTTP and TCP socket probes are refused; a gRPC
	// probe's dial waits for its timeout.
	reachedNothing
	// reachedTCPOnly: an HTTP probe on chain-workload's --tcp, which
	// accepts a connection and closes it without a word.
	reachedTCPOnly
	// reachedGRPC: an HTTP probe on chain-workload's --grpc, which
	// answers an HTTP/1.1 request with its HTTP/2 settings and closes.
	reachedGRPC
	// reachedNotGRPC: a gRPC probe on a listener that does not speak
	// HTTP/2 (--http, --tcp): the dial's handshake never completes.
	reachedNotGRPC
	// reachedNoPort: the probe names a port the container does not
	// declare; the kubelet cannot run it ("probe errored").
	reachedNoPort
)

// reach is what probe p of container c meets at now. The kubelet dials the
// pod's IP (pkg/kubelet/prober/prober.go runProbe: status.PodIP unless an
// HTTP or TCP socket probe names its host) on the port ResolveContainerPort
// gives. A probe that names another host reaches what the lab cannot see:
// its outcome decides.
//
// Left alone: an HTTPS probe on the HTTP port (net/http's "server gave
// HTTP response to HTTPS client"), a gRPC probe asking the health service
// of a service it does not know (NotFound), which path an HTTP probe
// asks, and the startup probe, which the simulated kubelet passes when
// due whatever it asks.
func reach(p *corev1.Probe, c *corev1.Container, cr *containerRecord, now time.Time) reached {
	var port intstr.IntOrString
	var host, speaks string
	switch {
	case p == nil:
		return reachedServer
	case p.HTTPGet != nil:
		port, host, speaks = p.HTTPGet.Port, p.HTTPGet.Host, workload.ServesHTTP
	case p.TCPSocket != nil:
		port, host, speaks = p.TCPSocket.Port, p.TCPSocket.Host, workload.ServesTCP
	case p.GRPC != nil:
		port, speaks = intstr.FromInt32(p.GRPC.Port), workload.ServesGRPC
	default:
		return reachedServer
	}
	n, err := resolveContainerPort(port, c)
	switch {
	case err != nil:
		return reachedNoPort
	case host != "":
		return reachedServer
	case cr.out.NotListening > 0 && now.Before(cr.startedAt.Add(cr.out.NotListening)):
		return reachedNothing
	case cr.out.Listens == nil:
		return reachedServer
	}
	serves, ok := cr.out.Listens[n]
	switch {
	case !ok:
		return reachedNothing
	case serves == speaks, speaks == workload.ServesTCP:
		// A TCP socket probe only connects, and every listener accepts.
		return reachedServer
	case speaks == workload.ServesGRPC:
		return reachedNotGRPC
	case serves == workload.ServesTCP:
		return reachedTCPOnly
	}
	return reachedGRPC
}

// probeTimeout applies the API default (1 s) to probes built without
// defaulting (tests), as probePeriod does.
func probeTimeout(p *corev1.Probe) time.Duration {
	if p.TimeoutSeconds <= 0 {
		return time.Second
	}
	return time.Duration(p.TimeoutSeconds) * time.Second
}

// grpcHTTP2Settings is the first line an HTTP/1.1 client reads from a gRPC
// server: the SETTINGS frame grpc-go's server writes before it reads the
// client's preface (google.golang.org/grpc internal/transport
// http2_server.go newHTTP2Server: MaxFrameSize 16384, http_util.go
// http2MaxFrameLen, and nothing else for chain-workload's default server),
// after which it closes the connection on the preface it does not get.
const grpcHTTP2Settings = "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x05\x00\x00\x40\x00"

// connFailure is the output of a probe that reaches no server of its
// protocol (r is not reachedServer or reachedNoPort):
//   - TCP socket: the dial's error (pkg/probe/tcp/tcp.go), "dial tcp
//     IP:PORT: connect: connection refused";
//   - gRPC: grpc.DialContext blocks (WithBlock) until the probe's timeout
//     and returns ctx.Err(), which pkg/probe/grpc/grpc.go words "timeout:
//     failed to connect service %q within %v: %+v";
//   - HTTP: net/http's url.Error around the cause (pkg/probe/http/http.go
//     returns err.Error()): the dial's refusal, as real kubelets print it
//     (testdata/real/messages' probe entries); io.EOF when the
//     connection closes before any answer (a real node says "read tcp
//     ...: read: connection reset by peer" instead about one time in
//     three, when its request lands before the close: the lab says the
//     more common one); and net/http's "net/http: HTTP/1.x transport
//     connection broken: malformed HTTP response %q" (transport.go,
//     response.go) around the gRPC server's settings frame (or, about
//     one time in fifty, when the frame lands before the request is
//     written, its "readLoopPeekFailLocked: %!w(<nil>)": the lab says
//     the common one).
//
// probes_test.go compares each with what the upstream probers print
// against the same listeners.
func connFailure(p *corev1.Probe, c *corev1.Container, podIP string, r reached) (string, error) {
	switch {
	case p.TCPSocket != nil:
		host, port, err := dialTarget(p.TCPSocket.Host, p.TCPSocket.Port, c, podIP)
		if err != nil {
			return "", err
		}
		return tcpRefused(host, port), nil
	case p.GRPC != nil:
		addr := net.JoinHostPort(podIP, strconv.Itoa(int(p.GRPC.Port)))
		return fmt.Sprintf(msgGRPCTimeout, addr, probeTimeout(p), context.DeadlineExceeded), nil
	}
	host, port, err := dialTarget(p.HTTPGet.Host, p.HTTPGet.Port, c, podIP)
	if err != nil {
		return "", err
	}
	var cause error
	switch r {
	case reachedTCPOnly:
		cause = io.EOF
	case reachedGRPC:
		cause = fmt.Errorf(msgHTTPBroken, fmt.Errorf("%s %q", msgMalformedResponse, grpcHTTP2Settings))
	default:
		cause = errors.New(tcpRefused(host, port))
	}
	scheme := strings.ToLower(string(p.HTTPGet.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	path := p.HTTPGet.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u := (&url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: path}).String()
	return (&url.Error{Op: "Get", URL: u, Err: cause}).Error(), nil
}
