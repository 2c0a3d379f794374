package component

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// etcdReadyTimeout bounds how long a fresh single member may take to elect
// itself; it normally takes well under a second.
const etcdReadyTimeout = 60 * time.Second

// etcdConfig is the embedded etcd of a lab: one member on loopback, TLS with
// client-certificate auth on both listeners, and no fsync (a lab's data is
// thrown away at `down`, so durability buys nothing and costs seconds).
func etcdConfig(l state.Layout, s state.Spec) (*embed.Config, error) {
	client, err := url.Parse(s.EtcdClientURL())
	if err != nil {
		return nil, err
	}
	peer, err := url.Parse(s.EtcdPeerURL())
	if err != nil {
		return nil, err
	}
	tls := transport.TLSInfo{
		CertFile:       l.Cert("etcd-server"),
		KeyFile:        l.Key("etcd-server"),
		TrustedCAFile:  l.Cert("ca"),
		ClientCertAuth: true,
	}
	cfg := embed.NewConfig()
	cfg.Name = "lab"
	cfg.Dir = l.EtcdData()
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ClientTLSInfo = tls
	cfg.PeerTLSInfo = tls
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{"stderr"}
	return cfg, nil
}

// runEtcd serves etcd until ctx ends or etcd fails.
func runEtcd(ctx context.Context, l state.Layout, s state.Spec) error {
	ctx, stop := withTermination(ctx)
	defer stop()
	if err := os.MkdirAll(l.EtcdData(), 0o700); err != nil {
		return err
	}
	cfg, err := etcdConfig(l, s)
	if err != nil {
		return err
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintf(os.Stderr, "etcd is ready on %s\n", s.EtcdClientURL())
	case <-time.After(etcdReadyTimeout):
		return errors.New("etcd did not become ready within 60s")
	case <-ctx.Done():
		return nil
	}
	select {
	case err := <-e.Err():
		return fmt.Errorf("etcd: %w", err)
	case <-ctx.Done():
		return nil
	}
}
