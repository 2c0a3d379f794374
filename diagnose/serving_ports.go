package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
	if strings.HasPrefix(string(svc.UID), "paste:") && !declared.named() {
		// kubectl describe prints no container port's name: a named
		// targetPort cannot be matched from pasted text (the paste's
		// note says so), and is not judged.
		return
	}
	obj := objectName("service", svc.Name)
	for i, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		field := fmt.Sprintf("spec.ports[%d].targetPort", i)
		if p.TargetPort.Type == intstr.String && p.TargetPort.StrVal != "" {
			name := p.TargetPort.StrVal
			if declared.byName(name, proto) {
				continue
			}
			c.add(sighting{
				d: decode.Decoded{Cause: decode.ServiceTargetPortNotFound,
					Summary:  fmt.Sprintf("Service %s port %s: targetPort %q is no %s port of the pods (they declare %s)", svc.Name, portLabel(p), name, proto, declared),
					NextStep: serviceStep(decode.ServiceTargetPortNotFound, svc.Name)},
				object: obj, since: w.later(svc.CreationTimestamp.Time),
				evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: obj, Field: field,
					Message: fmt.Sprintf("targetPort %s (%s); declared container ports: %s", name, proto, declared)}},
			})
		}
	}
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
