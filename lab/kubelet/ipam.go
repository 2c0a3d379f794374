package kubelet

import (
	"errors"
	"fmt"
	"sync"
)

// errPodCIDRFull is what the CNI plugin's host-local IPAM reports when the
// node's range is exhausted.
var errPodCIDRFull = errors.New("no IP addresses available in range set")

// podCIDR is the /24 of the node with 0-based index i: 10.244.(i+1).0/24, as
// kind hands out 10.244.1.0/24 to its first worker.
func podCIDR(i int) string { return fmt.Sprintf("10.244.%d.0/24", i+1) }

// ipam hands out pod IPs from one node's /24: .1 is the bridge's gateway,
// .2-.254 go to pods, lowest free first, so IPs are reused like host-local's.
type ipam struct {
	mu     sync.Mutex
	prefix string
	used   [256]bool
}

func newIPAM(nodeIndex int) *ipam {
	return &ipam{prefix: fmt.Sprintf("10.244.%d.", nodeIndex+1)}
}

// allocate returns a free IP.
func (a *ipam) allocate() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := 2; i < 255; i++ {
		if !a.used[i] {
			a.used[i] = true
			return a.prefix + fmt.Sprint(i), nil
		}
	}
	return "", errPodCIDRFull
}

// reserve marks ip used (a running pod found at start); foreign IPs are ignored.
func (a *ipam) reserve(ip string) {
	if i, ok := a.host(ip); ok {
		a.mu.Lock()
		a.used[i] = true
		a.mu.Unlock()
	}
}

// release frees ip.
func (a *ipam) release(ip string) {
	if i, ok := a.host(ip); ok {
		a.mu.Lock()
		a.used[i] = false
		a.mu.Unlock()
	}
}

func (a *ipam) host(ip string) (int, bool) {
	var i int
	if _, err := fmt.Sscanf(ip, a.prefix+"%d", &i); err != nil || i < 2 || i > 254 {
		return 0, false
	}
	return i, true
}
