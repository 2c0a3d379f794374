package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// servicePorts mirrors the EndpointSlice controller's FindPort
// (k8s.io/endpointslice v0.37.2 utils.go): a named targetPort must be a
// port of that name and protocol on a container, or on a sidecar (an init
// container with restartPolicy Always); if none is, the port is left out of
// every endpoint, so traffic to it goes nowhere. A number is used as it is,
// declared or not, since a declaration does not open or close a port: a
// number no container declares is a note, not a failure.
func (w *walker) servicePorts(c *collector, svc *corev1.Service, tmpl *corev1.PodTemplateSpec) {
	declared := declaredPorts(&tmpl.Spec)
	// kubectl describe prints no container port's name: a named
	// targetPort cannot be matched from pasted text (the paste's note says
	// so), and is judged only by the EndpointSlice controller's own
	// answer (leftOut).
	pastedNames := strings.HasPrefix(string(svc.UID), "paste:") && !declared.named()
	obj := objectName("service", svc.Name)
	for i, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		field := fmt.Sprintf("spec.ports[%d].targetPort", i)
		if p.TargetPort.Type == intstr.Int || p.TargetPort.StrVal == "" {
			w.probedElsewhere(c, svc, i, tmpl, declared)
			continue
		}
		name := p.TargetPort.StrVal
		var summary string
		var ev chain.Evidence
		switch {
		case !pastedNames && declared.byName(name, proto):
			continue
		case !pastedNames:
			summary = fmt.Sprintf("Service %s port %s: targetPort %q is no %s port of the pods (they declare %s)", svc.Name, portLabel(p), name, proto, declared)
			ev = chain.Evidence{Source: chain.SourceObjectStatus, Object: obj, Field: field,
				Message: fmt.Sprintf("targetPort %s (%s); declared container ports: %s", name, proto, declared)}
		default:
			sl := w.leftOut(svc, p)
			if sl == nil {
				continue
			}
			summary = fmt.Sprintf("Service %s port %s: targetPort %q is no %s port of the pods: the EndpointSlice controller left the port out of %s, which holds %d of their endpoints",
				svc.Name, portLabel(p), name, proto, sl.Name, len(sl.Endpoints))
			ev = chain.Evidence{Source: chain.SourceObjectStatus, Object: objectName("endpointslice", sl.Name), Field: "ports",
				Message: fmt.Sprintf("%d endpoints, no port %s (the Service's %s targets %q)", len(sl.Endpoints), orUnnamed(p.Name), field, name)}
		}
		c.add(sighting{
			d: decode.Decoded{Cause: decode.ServiceTargetPortNotFound, Summary: summary,
				NextStep: serviceStep(decode.ServiceTargetPortNotFound, svc.Name)},
			object: obj, since: w.later(svc.CreationTimestamp.Time), evidence: []chain.Evidence{ev},
		})
	}
}

// leftOut is an EndpointSlice of svc that holds endpoints but not its
// port p: the EndpointSlice controller gives each endpoint the ports
// FindPort resolves on its pod and groups endpoints by those ports, so a
// slice with endpoints and without p is of pods where p's named
// targetPort names no port (kubectl describe endpointslice prints
// "Ports: <unset>" for one with none). nil when every slice has it.
func (w *walker) leftOut(svc *corev1.Service, p corev1.ServicePort) *discoveryv1.EndpointSlice {
	for _, sl := range w.slicesOf(svc) {
		if len(sl.Endpoints) == 0 {
			continue
		}
		if !slices.ContainsFunc(sl.Ports, func(sp discoveryv1.EndpointPort) bool {
			return sp.Name != nil && *sp.Name == p.Name || sp.Name == nil && p.Name == ""
		}) {
			return sl
		}
	}
	return nil
}

// orUnnamed is a Service port's name, or "(unnamed)".
func orUnnamed(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return name
}

// probedElsewhere judges a numbered targetPort that no container declares
// when the pods themselves show where their program listens: a container
// declares ports, none of them the target, and its readiness probe (else
// its liveness probe) checks one of them over HTTP, TCP or gRPC. The probe
// passing says the program answers there; nothing says anything answers
// on the target, and traffic sent to a port no one listens on is refused.
// A target declared by any container, an undeclared probe port, an exec
// probe or no probe leave the number alone (servicePorts' note): a program
// may listen where its spec says nothing (kubernetes#73049), and many
// probe an admin port beside the one they serve (CoreDNS's 8080 and 8181
// beside 53).
func (w *walker) probedElsewhere(c *collector, svc *corev1.Service, i int, tmpl *corev1.PodTemplateSpec, declared containerPorts) {
	p := svc.Spec.Ports[i]
	target := p.TargetPort.IntVal
	if target == 0 {
		target = p.Port
	}
	for _, d := range declared {
		if d.port == target {
			return
		}
	}
	for _, ct := range tmpl.Spec.Containers {
		kind, probe := "readiness", ct.ReadinessProbe
		if probe == nil {
			kind, probe = "liveness", ct.LivenessProbe
		}
		port, ok := probePort(probe, ct.Ports)
		if !ok || port == target || !declaresPort(ct.Ports, port) {
			continue
		}
		obj := objectName("service", svc.Name)
		c.add(sighting{
			d: decode.Decoded{Cause: decode.ServiceTargetPortNotListening,
				Summary: fmt.Sprintf("Service %s port %s sends to %d, which no container declares; container %s declares %s and its %s probe checks %d: the program answers there, not on %d",
					svc.Name, portLabel(p), target, ct.Name, containerPortsOf(ct.Ports), kind, port, target),
				NextStep: serviceStep(decode.ServiceTargetPortNotListening, svc.Name)},
			object: obj, since: w.later(svc.CreationTimestamp.Time),
			evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: fmt.Sprintf("spec.ports[%d].targetPort", i),
				Message: fmt.Sprintf("targetPort %d; container %s declares %s; %s probe on port %d", target, ct.Name, containerPortsOf(ct.Ports), kind, port)}},
		})
		return
	}
}

// probePort is the port an HTTP, TCP or gRPC probe checks, a named one
// resolved against the container's ports; false for an exec probe or none.
func probePort(p *corev1.Probe, ports []corev1.ContainerPort) (int32, bool) {
	if p == nil {
		return 0, false
	}
	var port intstr.IntOrString
	switch {
	case p.HTTPGet != nil:
		port = p.HTTPGet.Port
	case p.TCPSocket != nil:
		port = p.TCPSocket.Port
	case p.GRPC != nil:
		return p.GRPC.Port, true
	default:
		return 0, false
	}
	if port.Type == intstr.Int {
		return port.IntVal, port.IntVal != 0
	}
	for _, cp := range ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

func declaresPort(ports []corev1.ContainerPort, n int32) bool {
	for _, cp := range ports {
		if cp.ContainerPort == n {
			return true
		}
	}
	return false
}

// containerPortsOf lists one container's ports as declaredPorts does.
func containerPortsOf(ports []corev1.ContainerPort) string {
	return declaredPorts(&corev1.PodSpec{Containers: []corev1.Container{{Ports: ports}}}).String()
}

// portLabel names a Service port as describe does: its name, else its
// number.
func portLabel(p corev1.ServicePort) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprint(p.Port)
}

// containerPort is one declared port of the pod template.
type containerPort struct {
	name  string
	port  int32
	proto corev1.Protocol
}

type containerPorts []containerPort

// named says a port has a name.
func (ps containerPorts) named() bool {
	for _, p := range ps {
		if p.name != "" {
			return true
		}
	}
	return false
}

// declaredPorts are the ports FindPort looks at: the containers', then the
// sidecars'.
func declaredPorts(spec *corev1.PodSpec) containerPorts {
	var out containerPorts
	add := func(cs []corev1.Container, sidecarsOnly bool) {
		for _, ct := range cs {
			if sidecarsOnly && (ct.RestartPolicy == nil || *ct.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range ct.Ports {
				proto := p.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				out = append(out, containerPort{name: p.Name, port: p.ContainerPort, proto: proto})
			}
		}
	}
	add(spec.Containers, false)
	add(spec.InitContainers, true)
	return out
}

func (ps containerPorts) byName(name string, proto corev1.Protocol) bool {
	for _, p := range ps {
		if p.name == name && p.proto == proto {
			return true
		}
	}
	return false
}

func (ps containerPorts) byNumber(n int32, proto corev1.Protocol) bool {
	for _, p := range ps {
		if p.port == n && p.proto == proto {
			return true
		}
	}
	return false
}

// String lists the ports as "http 8080/TCP, 9090/TCP", "no port" when none.
func (ps containerPorts) String() string {
	if len(ps) == 0 {
		return "no port"
	}
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%d/%s", p.port, p.proto)
		if p.name != "" {
			s = p.name + " " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
