package lab

import (
	"fmt"
	"net"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// freePorts asks the kernel for n distinct free loopback ports. The listeners
// stay open until all are chosen, so no two are the same; a port can still be
// taken between here and the component's bind, which the component's start
// error then names.
func freePorts(n int) ([]int, error) {
	var ports []int
	var open []net.Listener
	defer func() {
		for _, l := range open {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", net.JoinHostPort(state.Host, "0"))
		if err != nil {
			return nil, fmt.Errorf("finding a free port on %s: %w", state.Host, err)
		}
		open = append(open, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// allocatePorts fills a spec's ports.
func allocatePorts() (state.Ports, error) {
	p, err := freePorts(6)
	if err != nil {
		return state.Ports{}, err
	}
	return state.Ports{EtcdClient: p[0], EtcdPeer: p[1], APIServer: p[2], ControllerManager: p[3], Scheduler: p[4], AdmissionWebhook: p[5]}, nil
}
