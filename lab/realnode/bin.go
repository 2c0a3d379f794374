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
const BuildHint = "from a checkout of kubectl-chain: (cd lab/nodebin && go build -tags seccomp -o DIR tool) && CGO_ENABLED=0 go -C lab build -o DIR ./cmd/chain-workload " +
	"(runc's seccomp support needs libseccomp's headers: apt-get install libseccomp-dev)"

// CheckHost says what this machine lacks to run real nodes: root, cgroups,
// overlayfs, the ip command, and the programs in binDir.
func CheckHost(binDir string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("real nodes need root: they create cgroups, mounts, network namespaces and a bridge (run the lab as root, or drop --real-nodes)")
	}
	if err := checkKernel(mountinfo, os.ReadFile); err != nil {
		return err
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("real nodes need iproute2's ip command on PATH for their bridge: %w", err)
	}
	return checkPrograms(binDir)
}

// checkKernel wants the cgroup controllers the kubelet requires (v1: cpu,
// cpuacct, cpuset, memory; or the v2 hierarchy) and overlayfs, which
// containerd's snapshotter mounts.
func checkKernel(mounts func() ([]mount, error), read func(string) ([]byte, error)) error {
	ms, err := mounts()
	if err != nil {
		return fmt.Errorf("reading this machine's mounts: %w", err)
	}
	v1, v2 := map[string]bool{}, false
	for _, m := range ms {
		switch m.fstype {
		case "cgroup":
			for _, c := range strings.Split(filepath.Base(m.target), ",") {
				v1[c] = true
			}
		case "cgroup2":
			v2 = v2 || m.target == "/sys/fs/cgroup"
		}
	}
	if !v2 {
		var missing []string
		for _, c := range []string{"cpu", "cpuacct", "cpuset", "memory"} {
			if !v1[c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("real nodes need cgroups: the kubelet requires the cgroup v1 controllers %s mounted under /sys/fs/cgroup (or cgroup v2 there), and this machine lacks %s",
				"cpu, cpuacct, cpuset and memory", strings.Join(missing, ", "))
		}
	}
	fs, err := read("/proc/filesystems")
	if err != nil {
		return fmt.Errorf("reading /proc/filesystems: %w", err)
	}
	if !strings.Contains(string(fs), "\toverlay\n") {
		return fmt.Errorf("real nodes need overlayfs for containerd's snapshots, and this kernel does not list it in /proc/filesystems (modprobe overlay)")
	}
	return nil
}

// checkPrograms wants every one of Programs in binDir.
func checkPrograms(binDir string) error {
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
