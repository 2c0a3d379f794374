package component

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/realnode"
	"github.com/kubectl-chain/kubectl-chain/lab/registry"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// runRealNodeComponent runs the registry, or a real node's containerd or
// kubelet.
func runRealNodeComponent(ctx context.Context, name string, l state.Layout, s state.Spec) error {
	if name == state.Registry {
		ctx, stop := withTermination(ctx)
		defer stop()
		addrs := registry.Addrs{Registry: s.RegistryAddr(), Untrusted: s.RegistryUntrustedAddr(), Stalled: s.RegistryStalledAddr()}
		return registry.Run(ctx, addrs, l.Cert(state.Registry), l.Key(state.Registry),
			filepath.Join(s.NodeBin, "chain-workload"), os.Stdout)
	}
	nodeName, _ := state.RealNodeOf(name)
	n, err := realnode.Of(l, s, nodeName)
	if err != nil {
		return err
	}
	if name == state.Containerd(nodeName) {
		return runContainerd(ctx, n, s.NodeBin)
	}
	return runRealKubelet(ctx, n)
}

// runContainerd writes the node's configuration and runs containerd.
func runContainerd(ctx context.Context, n realnode.Node, bin string) error {
	if err := n.WriteContainerdFiles(bin); err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(bin, "containerd"), "--config", n.ContainerdConfig())
	// containerd finds its shim on PATH.
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return runChild(ctx, "containerd", cmd)
}

// runChild runs cmd as a child that dies with this process, its output
// this component's log, until it exits (an error) or SIGTERM, which is
// passed on.
func runChild(ctx context.Context, name string, cmd *exec.Cmd) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return fmt.Errorf("%s exited: %v", name, err)
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(8 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return nil
	}
}

// runRealKubelet prepares the host for the node (cgroups, bridge, the
// shared kubelet root), re-executes itself in a mount namespace of its own,
// and there runs upstream's kubelet once containerd answers.
func runRealKubelet(ctx context.Context, n realnode.Node) error {
	if !realnode.InOwnNamespace() {
		for _, step := range []func() error{n.WriteKubeletFiles, n.SetupCgroups, n.SetupBridge, n.ShareKubeletRoot} {
			if err := step(); err != nil {
				return err
			}
		}
		return realnode.ReexecInMountNamespace()
	}
	if err := realnode.FakeKernelTunables(filepath.Join(n.Dir(), "sysctl")); err != nil {
		return err
	}
	if err := waitForSocket(ctx, n.Socket(), state.Containerd(n.Name), time.Minute); err != nil {
		return err
	}
	if code := runUpstreamKubelet(ctx, n.KubeletArgs()); code != 0 {
		return fmt.Errorf("kubelet exited with code %d", code)
	}
	return nil
}

func waitForSocket(ctx context.Context, path, component string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("containerd's socket %s did not appear within %s: see `kubectl chain lab logs %s`", path, limit, component)
		}
		select {
		case <-ctx.Done():
			return errors.New("stopped while waiting for containerd")
		case <-time.After(200 * time.Millisecond):
		}
	}
}
