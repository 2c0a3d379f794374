package component

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// awaitAPIServer polls /readyz with the kubeconfig a component will use until
// the API server answers "ok". The controller-manager and the scheduler read
// kube-system/extension-apiserver-authentication once at start and exit if
// RBAC's bootstrap policy is not in place yet; a real node's kubelet would
// restart them, the lab holds them here instead. The process has already
// paid for starting by then, so this costs nothing.
func awaitAPIServer(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.Timeout = 2 * time.Second
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the API server: %w", ctx.Err())
		case <-t.C:
		}
	}
}
