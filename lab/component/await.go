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
	return awaitGET(ctx, kubeconfig, "/readyz", "the API server", func(body []byte) bool { return string(body) == "ok" })
}

// awaitAuthorized polls a GET of path with the component's kubeconfig
// until it is allowed: `up` grants an add-on's user its RBAC once the
// control plane is healthy, and a controller started before would log a
// forbidden list per informer until then.
func awaitAuthorized(ctx context.Context, kubeconfig, path string) error {
	return awaitGET(ctx, kubeconfig, path, "the component's RBAC", func([]byte) bool { return true })
}

// awaitGET polls a GET of path until it answers and ok accepts the body.
func awaitGET(ctx context.Context, kubeconfig, path, what string, ok func([]byte) bool) error {
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
		body, err := client.Discovery().RESTClient().Get().AbsPath(path).DoRaw(ctx)
		if err == nil && ok(body) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
	}
}
