package storage

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// Run serves ProvisionerName with the credentials of kubeconfig, creating
// volumes under root, until ctx ends. Leader election is off: a lab runs
// one provisioner, and a restarted one must not wait out a stale lease.
func Run(ctx context.Context, kubeconfig, root string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = "kubectl-chain-lab/" + ProvisionerName
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("creating the volumes directory: %w", err)
	}
	pc := controller.NewProvisionController(ctx, client, ProvisionerName, HostPath{Root: root},
		controller.LeaderElection(false),
	)
	pc.Run(ctx)
	return nil
}
