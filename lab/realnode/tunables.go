package realnode

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelTunables are the sysctls the kubelet sets at start unless
// protectKernelDefaults is on, then refuses to start when they differ
// (pkg/kubelet/cm/container_manager_linux.go setupKernelTunables, v1.37.2),
// with the values it wants (k8s.io/component-helpers/node/util/sysctl).
// A kubelet on a laptop would make the machine panic on an oops; the lab's
// kubelet sees these values in a mount namespace of its own instead, and
// the host keeps its settings.
var kernelTunables = map[string]int{
	"vm/overcommit_memory":      1,
	"vm/panic_on_oom":           0,
	"kernel/panic":              10,
	"kernel/panic_on_oops":      1,
	"kernel/keys/root_maxkeys":  1000000,
	"kernel/keys/root_maxbytes": 25000000,
}

// namespaceEnv marks the re-executed process that already runs in its own
// mount namespace.
const namespaceEnv = "KUBECTL_CHAIN_LAB_OWN_MOUNT_NS"

// InOwnNamespace reports whether this process was re-executed by
// ReexecInMountNamespace.
func InOwnNamespace() bool { return os.Getenv(namespaceEnv) == "1" }

// ReexecInMountNamespace re-executes this process, with its arguments, in a
// new mount namespace whose mounts keep their propagation (so the shared
// kubelet root still reaches the host). It returns only on failure.
func ReexecInMountNamespace() error {
	runtime.LockOSThread() // the namespace is the calling thread's; exec keeps it
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("creating a mount namespace for the kubelet: %w", err)
	}
	env := append(os.Environ(), namespaceEnv+"=1")
	return unix.Exec("/proc/self/exe", os.Args, env)
}

// FakeKernelTunables makes the kubelet's sysctls read the values it wants,
// in this process's own mount namespace: /proc becomes private there, so
// nothing of it reaches the host, and each file is a bind mount of a file
// under dir holding the wanted value.
func FakeKernelTunables(dir string) error {
	if !InOwnNamespace() {
		return fmt.Errorf("refusing to shadow /proc/sys outside the kubelet's own mount namespace")
	}
	if err := unix.Mount("", "/proc", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making /proc private in the kubelet's namespace: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for key, value := range kernelTunables {
		file := filepath.Join(dir, strings.ReplaceAll(key, "/", "."))
		if err := os.WriteFile(file, []byte(strconv.Itoa(value)+"\n"), 0o600); err != nil {
			return err
		}
		target := filepath.Join("/proc/sys", key)
		if err := unix.Mount(file, target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("shadowing %s: %w", target, err)
		}
	}
	return nil
}
