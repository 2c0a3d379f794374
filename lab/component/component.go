// Package component runs one process of a lab: embedded etcd, upstream's
// kube-apiserver, kube-controller-manager and kube-scheduler from
// k8s.io/kubernetes, the simulated kubelet, or the storage provisioner. The lab binary re-executes
// itself once per component, because the upstream commands own process-wide
// state (signal handlers, klog flags, feature gates, metrics registries).
//
// Only lab/cmd/kubectl-chain-lab may import this package: it pulls in
// k8s.io/kubernetes, which the diagnosis binary must never link.
package component

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
	"github.com/kubectl-chain/kubectl-chain/lab/operator"
	"github.com/kubectl-chain/kubectl-chain/lab/rollouts"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
	"github.com/kubectl-chain/kubectl-chain/lab/storage"
	"github.com/kubectl-chain/kubectl-chain/lab/traffic"
	"github.com/kubectl-chain/kubectl-chain/lab/webhook"
)

type runner func(ctx context.Context, l state.Layout, s state.Spec) error

var runners = map[string]runner{
	state.Etcd:               runEtcd,
	state.APIServer:          runAPIServer,
	state.ControllerManager:  runControllerManager,
	state.Scheduler:          runScheduler,
	state.Kubelet:            runKubelet,
	state.AdmissionWebhook:   runAdmissionWebhook,
	state.StorageProvisioner: runStorageProvisioner,
	state.TrafficController:  runTrafficController,
	state.RolloutsController: runRolloutsController,
	state.Operator:           runOperator,
}

// Run runs the named component of the lab in dir until it stops or ctx ends.
func Run(ctx context.Context, name, dir string) error {
	stampVersion()
	l := state.Layout{Dir: dir}
	s, err := state.ReadSpec(l)
	if err != nil {
		return fmt.Errorf("reading the lab's spec: %w", err)
	}
	if run, ok := runners[name]; ok {
		return run(ctx, l, s)
	}
	if slices.Contains(s.ComponentNames(), name) {
		return runRealNodeComponent(ctx, name, l, s)
	}
	return fmt.Errorf("unknown component %q", name)
}

// withTermination ends ctx on SIGTERM or SIGINT, for the components we run
// ourselves; the upstream commands install their own handlers, and for them
// no handler of ours may swallow the signal.
func withTermination(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
}

func runKubelet(ctx context.Context, l state.Layout, s state.Spec) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	if s.Nodes.Count == 0 {
		// a lab of real nodes only (up --nodes 0 --real-nodes N)
		fmt.Println("no simulated nodes in this lab: idle")
		<-ctx.Done()
		return nil
	}
	c, err := kubelet.ConfigFromSpec(l, s)
	if err != nil {
		return err
	}
	return kubelet.Run(ctx, c)
}

// runAdmissionWebhook serves the lab's admission webhook with its
// certificate from the lab's CA; decisions go to the component's log.
func runAdmissionWebhook(ctx context.Context, l state.Layout, s state.Spec) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	return webhook.Run(ctx, s.AdmissionWebhookAddr(), l.Cert(state.AdmissionWebhook), l.Key(state.AdmissionWebhook), os.Stdout)
}

// runStorageProvisioner serves the default StorageClass (lab/storage)
// as its own user; `up` installs that user's RBAC and the class.
func runStorageProvisioner(ctx context.Context, l state.Layout, _ state.Spec) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	kc := l.ComponentKubeconfig(state.StorageProvisioner)
	if err := awaitAPIServer(ctx, kc); err != nil {
		return err
	}
	return storage.Run(ctx, kc, l.Volumes())
}

// runOperator runs the lab's operator as its own user once `up` has
// installed the Shop CRD and its RBAC.
func runOperator(ctx context.Context, l state.Layout, _ state.Spec) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	kc := l.ComponentKubeconfig(state.Operator)
	if err := awaitAPIServer(ctx, kc); err != nil {
		return err
	}
	if err := awaitAuthorized(ctx, kc, operator.Resource); err != nil {
		return err
	}
	return operator.Run(ctx, kc)
}

// runTrafficController runs lab-traefik (up --traffic-controller) as its
// own user once the API server answers.
func runTrafficController(ctx context.Context, l state.Layout, s state.Spec) error {
	kc := l.ComponentKubeconfig(state.TrafficController)
	if err := awaitAPIServer(ctx, kc); err != nil {
		return err
	}
	if err := awaitAuthorized(ctx, kc, "/apis/gateway.networking.k8s.io/v1/gatewayclasses"); err != nil {
		return err
	}
	return runChild(ctx, traffic.Program, traffic.Command(s.TrafficController, kc, state.Host))
}

// runRolloutsController runs Argo Rollouts' controller (up
// --rollouts-controller) as its own user once `up` has installed its CRDs
// and RBAC.
func runRolloutsController(ctx context.Context, l state.Layout, s state.Spec) error {
	kc := l.ComponentKubeconfig(state.RolloutsController)
	if err := awaitAPIServer(ctx, kc); err != nil {
		return err
	}
	if err := awaitAuthorized(ctx, kc, rollouts.Resource); err != nil {
		return err
	}
	return runChild(ctx, rollouts.Program, rollouts.Command(s.RolloutsController, kc))
}
