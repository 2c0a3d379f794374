// Command lab-traefik is the lab's Ingress and Gateway API controller:
// Traefik's Kubernetes Ingress and Gateway providers, configured as
// Traefik's static configuration configures them, run until SIGTERM. They
// watch the cluster and write what Traefik writes: an Ingress's
// status.loadBalancer, and the conditions of GatewayClasses (controller
// traefik.io/gateway-controller), Gateways and routes. The routing
// configuration they produce, which Traefik's proxy would serve, is
// dropped: the lab needs the statuses, not the traffic.
//
// It reads the cluster from $KUBECONFIG, as Traefik does outside a cluster.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"
	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/provider/kubernetes/gateway"
	"github.com/traefik/traefik/v3/pkg/provider/kubernetes/ingress"
	"github.com/traefik/traefik/v3/pkg/safe"
)

func main() {
	address := flag.String("address", "127.0.0.1", "the address written into Ingress and Gateway statuses (Traefik's ingressEndpoint.ip and statusAddress.ip)")
	debug := flag.Bool("debug", false, "log at debug level")
	flag.Parse()
	if os.Getenv("KUBECONFIG") == "" {
		fmt.Fprintln(os.Stderr, "lab-traefik: set KUBECONFIG to the cluster's kubeconfig")
		os.Exit(2)
	}
	level := zerolog.InfoLevel
	if *debug {
		level = zerolog.DebugLevel
	}
	log.Logger = zerolog.New(os.Stdout).Level(level).With().Timestamp().Logger()
	if err := run(*address); err != nil {
		log.Error().Err(err).Msg("lab-traefik stopped")
		os.Exit(1)
	}
}

func run(address string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	ing := &ingress.Provider{IngressEndpoint: &ingress.EndpointIngress{IP: address}}
	gw := &gateway.Provider{
		StatusAddress: &gateway.StatusAddress{IP: address},
		// Traefik's default entry points, which listeners on ports 80 and
		// 443 attach to.
		EntryPoints: map[string]gateway.Entrypoint{
			"web":       {Address: ":80"},
			"websecure": {Address: ":443", HasHTTPTLSConf: true},
		},
	}
	gw.SetDefaults()
	if err := gw.Init(); err != nil {
		return err
	}
	if err := ing.Init(); err != nil {
		return err
	}

	pool := safe.NewPool(ctx)
	defer pool.Stop()
	configs := make(chan dynamic.Message, 16)
	if err := ing.Provide(configs, pool); err != nil {
		return fmt.Errorf("starting the Ingress provider: %w", err)
	}
	if err := gw.Provide(configs, pool); err != nil {
		return fmt.Errorf("starting the Gateway provider: %w", err)
	}
	log.Info().Str("address", address).Msg("lab-traefik: Traefik's Kubernetes Ingress and Gateway providers are running")
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-configs:
			log.Debug().Str("provider", m.ProviderName).Msg("configuration received (not served)")
		}
	}
}
