package e2e

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/event"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
)

// kstatusPoll is how often the kstatus wait polls: Flux's health checks
// and Helm 4's kstatus waiter poll, where kubectl chain and kubectl
// rollout status watch.
const kstatusPoll = 2 * time.Second

var (
	kstatusOnce   sync.Once
	kstatusReader crclient.Reader
	kstatusMapper meta.RESTMapper
	kstatusErr    error
)

// kstatusWait waits as a kstatus gate does for the Deployment: done when
// its status is Current (exit 0), failed when it is Failed (exit 1), else
// it times out (exit 1, timed out).
func kstatusWait(ctx context.Context, ns, name string, timeout time.Duration) gateRun {
	start := time.Now()
	kstatusOnce.Do(func() {
		// controller-runtime's client logs through its own logger, which
		// otherwise prints a stack trace on first use.
		crlog.SetLogger(logr.Discard())
		var cfg *rest.Config
		if cfg, kstatusErr = clientcmd.BuildConfigFromFlags("", kubeconfig); kstatusErr != nil {
			return
		}
		cfg.QPS, cfg.Burst = 100, 200
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			kstatusErr = err
			return
		}
		if kstatusMapper, kstatusErr = apiutil.NewDynamicRESTMapper(cfg, hc); kstatusErr != nil {
			return
		}
		kstatusReader, kstatusErr = crclient.New(cfg, crclient.Options{HTTPClient: hc, Mapper: kstatusMapper})
	})
	if kstatusErr != nil {
		return gateRun{code: -1, took: time.Since(start)}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	poller := polling.NewStatusPoller(kstatusReader, kstatusMapper, polling.Options{})
	id := object.ObjMetadata{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: ns, Name: name}
	for ev := range poller.Poll(ctx, object.ObjMetadataSet{id}, polling.PollOptions{PollInterval: kstatusPoll}) {
		if ev.Type != event.ResourceUpdateEvent || ev.Resource == nil {
			continue
		}
		switch ev.Resource.Status {
		case status.CurrentStatus:
			return gateRun{took: time.Since(start)}
		case status.FailedStatus:
			return gateRun{code: 1, took: time.Since(start)}
		}
	}
	return gateRun{code: 1, timedOut: true, took: time.Since(start)}
}
