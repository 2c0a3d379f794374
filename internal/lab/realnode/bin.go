package realnode

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Programs are what a real node runs besides the kubelet (which is in the
// lab binary): containerd, its runc shim, runc, the CNI plugins it uses, and
// the program every lab image holds.
var Programs = []string{"containerd", "containerd-shim-runc-v2", "runc", "bridge", "host-local", "loopback", "chain-workload"}

// BuildHint is how to build the programs into DIR from a checkout.
const BuildHint = "from a checkout of kubectl-chain: (cd internal/lab/nodebin && go build -tags seccomp -o DIR tool) && CGO_ENABLED=0 go build -o DIR ./cmd/chain-workload " +
	"(runc's seccomp support needs libseccomp's headers: apt-get install libseccomp-dev)"

// CheckHost says what this machine lacks to run real nodes: root, the ip
// command, and the programs in binDir.
func CheckHost(binDir string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("real nodes need root: they create cgroups, mounts, network namespaces and a bridge (run the lab as root, or drop --real-nodes)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("real nodes need iproute2's ip command on PATH for their bridge: %w", err)
	}
	var missing []string
	for _, p := range Programs {
		st, err := os.Stat(filepath.Join(binDir, p))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("real nodes need %s in %s (--node-bin); build them %s",
			strings.Join(missing, ", "), binDir, strings.ReplaceAll(BuildHint, "DIR", binDir))
	}
	return nil
}
