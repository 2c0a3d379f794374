package realnode

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// WriteContainerdFiles writes containerd's configuration, the registry
// host's and the CNI network's (the containerd component's, at its start).
func (n Node) WriteContainerdFiles(binDir string) error {
	files := map[string]string{
		n.ContainerdConfig(): n.containerdToml(binDir),
		filepath.Join(n.CNIConfDir(), "10-kubectl-chain-lab.conflist"):                  n.cniConflist(),
		filepath.Join(n.cniMissingConfDir(), "10-"+state.CNIMissingNetwork+".conflist"): n.cniMissingConflist(),
	}
	for host, toml := range n.hostsTomls() {
		files[n.path("containerd", "certs.d", host, "hosts.toml")] = toml
	}
	return writeFiles(files)
}

// WriteKubeletFiles writes the kubelet's configuration and creates its root
// directory (the kubelet component's, at its start: the two components
// start at once).
func (n Node) WriteKubeletFiles() error {
	if err := writeFiles(map[string]string{n.KubeletConfig(): n.kubeletYAML()}); err != nil {
		return err
	}
	return os.MkdirAll(n.KubeletRoot(), 0o700)
}

func writeFiles(files map[string]string) error {
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// SetupBridge creates the node's bridge with the node's address, as the CNI
// bridge plugin would on the first pod; the kubelet needs the address
// before any pod exists (it is the node's InternalIP).
func (n Node) SetupBridge() error {
	if _, err := net.InterfaceByName(n.Bridge); err != nil {
		if err := ip("link", "add", n.Bridge, "type", "bridge"); err != nil {
			return err
		}
	}
	_, subnet, err := net.ParseCIDR(n.Subnet)
	if err != nil {
		return err
	}
	ones, _ := subnet.Mask.Size()
	if !hasAddr(n.Bridge, n.NodeIP) {
		if err := ip("addr", "add", fmt.Sprintf("%s/%d", n.NodeIP, ones), "dev", n.Bridge); err != nil {
			return err
		}
	}
	return ip("link", "set", n.Bridge, "up")
}

func hasAddr(iface, addr string) bool {
	i, err := net.InterfaceByName(iface)
	if err != nil {
		return false
	}
	addrs, _ := i.Addrs()
	for _, a := range addrs {
		if strings.HasPrefix(a.String(), addr+"/") {
			return true
		}
	}
	return false
}

// ip runs iproute2's ip command.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// SetupCgroups creates the kubelet's cgroup root in every cgroup v1
// hierarchy (the kubelet requires it to exist), with the cpuset hierarchy's
// cpus and mems copied from its parent, as the kernel leaves them empty.
// On cgroup v2 the kubelet creates it itself.
func (n Node) SetupCgroups() error {
	hierarchies, err := cgroupHierarchies(false)
	if err != nil || len(hierarchies) == 0 {
		return err
	}
	for _, h := range hierarchies {
		parts := strings.Split(strings.Trim(n.CgroupRoot(), "/"), "/")
		dir := h
		for _, p := range parts {
			parent := dir
			dir = filepath.Join(dir, p)
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("creating cgroup %s: %w", dir, err)
			}
			if filepath.Base(h) == "cpuset" {
				for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
					if cur, _ := os.ReadFile(filepath.Join(dir, f)); strings.TrimSpace(string(cur)) != "" {
						continue
					}
					v, err := os.ReadFile(filepath.Join(parent, f))
					if err != nil {
						return err
					}
					if err := os.WriteFile(filepath.Join(dir, f), v, 0o644); err != nil {
						return fmt.Errorf("setting %s of %s: %w", f, dir, err)
					}
				}
			}
		}
	}
	return nil
}

// cgroupHierarchies are the mounted cgroup v1 hierarchies, and with v2 the
// unified one too (a hybrid host has both; runc creates a container's
// cgroup in each).
func cgroupHierarchies(v2 bool) ([]string, error) {
	mounts, err := mountinfo()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mounts {
		if m.fstype == "cgroup" || v2 && m.fstype == "cgroup2" {
			out = append(out, m.target)
		}
	}
	return out, nil
}

// ShareKubeletRoot bind-mounts the kubelet's root directory on itself and
// makes it a shared mount: the kubelet runs in a mount namespace of its own
// (tunables.go), and the volumes it mounts under its root must reach
// containerd and runc in the host's.
func (n Node) ShareKubeletRoot() error {
	root := n.KubeletRoot()
	if !isMountPoint(root) {
		if err := unix.Mount(root, root, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mounting %s: %w", root, err)
		}
	}
	if err := unix.Mount("", root, "", unix.MS_SHARED, ""); err != nil {
		return fmt.Errorf("sharing the mount %s: %w", root, err)
	}
	return nil
}

func isMountPoint(path string) bool {
	mounts, _ := mountinfo()
	for _, m := range mounts {
		if m.target == path {
			return true
		}
	}
	return false
}

// mount is one line of /proc/self/mountinfo.
type mount struct{ target, fstype string }

func mountinfo() ([]mount, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var out []mount
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+1 >= len(fields) {
			continue
		}
		out = append(out, mount{target: unescapeMount(fields[4]), fstype: fields[sep+1]})
	}
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline
// and backslash.
func unescapeMount(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}
