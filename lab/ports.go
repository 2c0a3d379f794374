package lab

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// ephemeralRange is where the kernel takes the ports it hands to a bind of
// port 0 and to outgoing connections.
const ephemeralRange = "/proc/sys/net/ipv4/ip_local_port_range"

// lowestPort is the bottom of the range the lab chooses its ports in when
// the kernel's ephemeral range leaves room below it: above the well-known
// ports other services are configured with (a real node's kubelet takes
// 10250 and its health port 10248).
const lowestPort = 20000

// PortPicker chooses a lab's loopback ports. Each stays bound until Close,
// so no two are the same. They are chosen below the kernel's ephemeral
// range when it leaves room: the lab's components bind theirs only once
// they start, some seconds after the choice, and meanwhile the kernel
// often hands a just-closed ephemeral port to the next bind of port 0
// (CI saw a lab with a real node lose its controller manager's port).
type PortPicker struct {
	open      []net.Listener
	low, high int // the range chosen in; 0, 0 asks the kernel
}

func NewPortPicker() *PortPicker {
	p := &PortPicker{}
	p.low, p.high = pickRange(readEphemeralRange())
	return p
}

// readEphemeralRange reads the kernel's ephemeral port range; 0, 0 when it
// cannot.
func readEphemeralRange() (int, int) {
	b, err := os.ReadFile(ephemeralRange)
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo > hi {
		return 0, 0
	}
	return lo, hi
}

// pickRange is where ports are chosen given the ephemeral range lo-hi:
// below it from lowestPort, else above it, when either leaves 1,000 ports;
// 0, 0 (ask the kernel) when neither does or the range is unknown.
func pickRange(lo, hi int) (int, int) {
	switch {
	case lo == 0 && hi == 0:
		return 0, 0
	case lo-lowestPort >= 1000:
		return lowestPort, lo - 1
	case 65535-hi >= 1000:
		return hi + 1, 65535
	}
	return 0, 0
}

// Pick chooses a free port and holds it until Close.
func (p *PortPicker) Pick() (int, error) {
	if p.low > 0 {
		for range 200 {
			port := p.low + rand.IntN(p.high-p.low+1)
			l, err := net.Listen("tcp", net.JoinHostPort(state.Host, strconv.Itoa(port)))
			if err == nil {
				p.open = append(p.open, l)
				return port, nil
			}
		}
		// A crowded range: the kernel's choice is still a free port.
	}
	l, err := net.Listen("tcp", net.JoinHostPort(state.Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("finding a free port on %s: %w", state.Host, err)
	}
	p.open = append(p.open, l)
	return l.Addr().(*net.TCPAddr).Port, nil
}

// picks chooses n ports.
func (p *PortPicker) picks(n int) ([]int, error) {
	var ports []int
	for range n {
		port, err := p.Pick()
		if err != nil {
			return nil, err
		}
		ports = append(ports, port)
	}
	return ports, nil
}

// Close frees the ports for the components to bind.
func (p *PortPicker) Close() {
	for _, l := range p.open {
		l.Close()
	}
	p.open = nil
}

// allocatePorts fills a spec's control plane ports.
func allocatePorts(p *PortPicker) (state.Ports, error) {
	ports, err := p.picks(6)
	if err != nil {
		return state.Ports{}, err
	}
	return state.Ports{EtcdClient: ports[0], EtcdPeer: ports[1], APIServer: ports[2], ControllerManager: ports[3], Scheduler: ports[4], AdmissionWebhook: ports[5]}, nil
}
