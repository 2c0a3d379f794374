package realnode

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// shimSocketRoot is where containerd's shims put their sockets
// (pkg/shim/util_unix.go SocketAddress: defaults.DefaultStateDir + "/s").
const shimSocketRoot = "/run/containerd/s"

// Cleanup removes what a stopped node leaves on the host once its kubelet
// and containerd are gone: the processes in its cgroups (containers and
// pause processes), its shims and their sockets, every mount under its
// directory (overlay root filesystems, volumes, network namespaces, the
// shared kubelet root), its bridge and its cgroups. It returns what it
// could not remove; Leftovers lists what is still there.
func (n Node) Cleanup() []error {
	var errs []error
	for _, p := range n.processes() {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	n.waitProcesses(10 * time.Second)
	for _, p := range n.processes() {
		errs = append(errs, fmt.Errorf("process %d (%s) survived SIGKILL", p.pid, p.what))
	}
	for _, sock := range n.shimSockets() {
		if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, m := range n.mounts() {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", m, err))
		}
	}
	if _, err := net.InterfaceByName(n.Bridge); err == nil {
		if err := ip("link", "del", n.Bridge); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dir := range n.cgroupDirs() {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dir, err))
		}
	}
	// The labs' common parent goes with the last lab's last node (it is
	// not empty while another lab runs, and then stays).
	roots, _ := cgroupHierarchies(true)
	for _, h := range roots {
		_ = os.Remove(filepath.Join(h, filepath.Dir(n.CgroupRoot())))
	}
	return errs
}

// Leftovers lists what of the node is still on the host: processes, shim
// sockets, mounts, the bridge, cgroups. Empty after a clean down.
func (n Node) Leftovers() []string {
	var out []string
	for _, p := range n.processes() {
		out = append(out, fmt.Sprintf("process %d (%s)", p.pid, p.what))
	}
	for _, s := range n.shimSockets() {
		out = append(out, "shim socket "+s)
	}
	for _, m := range n.mounts() {
		out = append(out, "mount "+m)
	}
	if _, err := net.InterfaceByName(n.Bridge); err == nil {
		out = append(out, "network interface "+n.Bridge)
	}
	for _, dir := range n.cgroupDirs() {
		out = append(out, "cgroup "+dir)
	}
	return out
}

type process struct {
	pid  int
	what string
}

// processes are the node's shims (by their -address, the node's socket)
// and every process in the node's cgroups.
func (n Node) processes() []process {
	var out []process
	seen := map[int]bool{}
	entries, _ := os.ReadDir("/proc")
	marker := []byte("\x00" + n.Socket() + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(append(cmdline, 0), marker) {
			out = append(out, process{pid, "a shim of " + n.Name})
			seen[pid] = true
		}
	}
	for _, dir := range n.cgroupDirs() {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
				out = append(out, process{pid, "in cgroup " + dir})
				seen[pid] = true
			}
		}
	}
	return out
}

func (n Node) waitProcesses(limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end) && len(n.processes()) > 0; {
		time.Sleep(100 * time.Millisecond)
	}
}

// shimSockets are the sockets of the node's shims: each is named by the
// hash of the containerd address, namespace and task id it serves, and the
// node's task ids are its containerd state's task directories.
func (n Node) shimSockets() []string {
	var out []string
	tasks := n.path("containerd", "state", "io.containerd.runtime.v2.task")
	namespaces, _ := os.ReadDir(tasks)
	for _, ns := range namespaces {
		ids, _ := os.ReadDir(filepath.Join(tasks, ns.Name()))
		for _, id := range ids {
			sum := sha256.Sum256([]byte(filepath.Join(n.Socket(), ns.Name(), id.Name())))
			sock := filepath.Join(shimSocketRoot, fmt.Sprintf("%x", sum))
			if _, err := os.Lstat(sock); err == nil {
				out = append(out, sock)
			}
		}
	}
	return out
}

// mounts are the mount points at or under the node's directory, deepest
// first, so each is unmounted before the one it sits on.
func (n Node) mounts() []string {
	all, _ := mountinfo()
	var out []string
	for _, m := range all {
		if m.target == n.Dir() || strings.HasPrefix(m.target, n.Dir()+"/") {
			out = append(out, m.target)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// cgroupDirs are the node's cgroup directories in every hierarchy, deepest
// first.
func (n Node) cgroupDirs() []string {
	roots, _ := cgroupHierarchies(true)
	var out []string
	for _, h := range roots {
		root := filepath.Join(h, n.CgroupRoot())
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				out = append(out, path)
			}
			return nil
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}
