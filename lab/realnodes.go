package lab

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/lab/realnode"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// planRealNodes names the real nodes, gives each a bridge and a /24 of
// 10.89.0.0/16 that no interface of this machine uses yet, and chooses the
// registry's port.
func (l Lab) planRealNodes(spec *state.Spec, o UpOptions, ports *PortPicker) error {
	bin, err := filepath.Abs(o.NodeBin)
	if err != nil {
		return err
	}
	spec.NodeBin = bin
	p, err := ports.picks(3)
	if err != nil {
		return err
	}
	spec.Ports.Registry, spec.Ports.RegistryUntrusted, spec.Ports.RegistryStalled = p[0], p[1], p[2]
	used, err := usedSubnets()
	if err != nil {
		return err
	}
	for i := 0; i < o.RealNodes; i++ {
		third := -1
		for x := 0; x < 256; x++ {
			if !used[x] {
				third = x
				used[x] = true
				break
			}
		}
		if third < 0 {
			return fmt.Errorf("no free /24 left in 10.89.0.0/16 for real node %d", i+1)
		}
		spec.RealNodes = append(spec.RealNodes, state.RealNode{
			Name:   state.RealNodeName(i),
			Bridge: realnode.BridgeName(l.Layout.Dir, i),
			Subnet: fmt.Sprintf("10.89.%d.0/24", third),
			NodeIP: fmt.Sprintf("10.89.%d.1", third),
		})
	}
	return nil
}

// usedSubnets are the third octets of 10.89.X.0/24 that this machine's
// interfaces already have an address in (another lab's real nodes).
func usedSubnets() (map[int]bool, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("listing this machine's addresses: %w", err)
	}
	used := map[int]bool{}
	for _, a := range addrs {
		ip, _, err := net.ParseCIDR(a.String())
		if v4 := ip.To4(); err == nil && v4 != nil && v4[0] == 10 && v4[1] == 89 {
			used[int(v4[2])] = true
		}
	}
	return used, nil
}

// cleanupRealNodes removes what the lab's stopped real nodes left on the
// host; it returns what remains.
func (l Lab) cleanupRealNodes() []string {
	spec, err := l.Spec()
	if err != nil {
		return nil
	}
	var left []string
	for _, rn := range spec.RealNodes {
		n, err := realnode.Of(l.Layout, spec, rn.Name)
		if err != nil {
			continue
		}
		for _, err := range n.Cleanup() {
			left = append(left, err.Error())
		}
	}
	return left
}

// RealNodeLeftovers lists what the lab's real nodes have on the host
// (processes, mounts, interfaces, cgroups): empty once down is done.
func RealNodeLeftovers(spec state.Spec, l state.Layout) []string {
	var out []string
	for _, rn := range spec.RealNodes {
		n, err := realnode.Of(l, spec, rn.Name)
		if err != nil {
			continue
		}
		for _, s := range n.Leftovers() {
			out = append(out, rn.Name+": "+s)
		}
	}
	return out
}

func joinLines(lines []string) string { return "\n  " + strings.Join(lines, "\n  ") }
