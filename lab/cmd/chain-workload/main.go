// Command chain-workload is the program in every image of the lab's
// registry: a static binary that behaves as a scenario asks, so that a real
// node's failures are real. Its flags (a pod's args) choose the behaviour:
//
//	chain-workload                        serve HTTP on :8080 (/healthz, /ready)
//	chain-workload --exit 3 --after 2s    exit with code 3 after 2 seconds
//	chain-workload --alloc-mb 16          allocate 16 MiB a second until killed
//	chain-workload --write-mb 64 --to /data/fill
//	                                      write 64 MiB to a file, then serve
//	chain-workload --start-delay 30s      sleep before serving (slow start)
//	chain-workload --ready-after 20s      /ready answers 503 until then
//	chain-workload --unhealthy            /healthz answers 503 (liveness fails)
//	chain-workload --ignore-sigterm       keep running when told to stop
//	chain-workload --tcp :9000 --grpc :9090
//	                                      also answer TCP and gRPC health probes
//	chain-workload pause                  the pod sandbox's process
//
// Every flag may also come from the environment: CHAIN_EXIT, CHAIN_AFTER, ...
// (the flag's name in upper case, dashes as underscores, CHAIN_ first).
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kubectl-chain/kubectl-chain/lab/cmd/chain-workload/early"
	"github.com/kubectl-chain/kubectl-chain/lab/workload"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "pause" {
		pause()
		return
	}
	o, err := workload.Parse(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chain-workload:", err)
		os.Exit(2)
	}
	os.Exit(run(o, early.Signals))
}

func run(o workload.Options, sig <-chan os.Signal) int {
	logf := func(format string, a ...any) {
		if !o.Quiet {
			fmt.Fprintf(os.Stdout, time.Now().UTC().Format(time.RFC3339)+" "+format+"\n", a...)
		}
	}
	start := time.Now()
	if o.StartDelay > 0 {
		logf("starting in %s", o.StartDelay)
		time.Sleep(o.StartDelay)
	}
	if o.WriteMB > 0 {
		if err := fill(o.To, o.WriteMB); err != nil {
			logf("write %s: %v", o.To, err)
			return 1
		}
		logf("wrote %d MiB to %s", o.WriteMB, o.To)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := serve(ctx, o, start, logf); err != nil {
		logf("%v", err)
		return 1
	}
	if o.AllocMB > 0 {
		go alloc(o.AllocMB, logf)
	}
	var exit <-chan time.Time
	if o.Exit >= 0 {
		exit = time.After(o.After)
	}
	for {
		select {
		case <-exit:
			logf("exiting with code %d", o.Exit)
			return o.Exit
		case s := <-sig:
			if o.IgnoreTerm && s == syscall.SIGTERM {
				logf("ignoring %s", s)
				continue
			}
			logf("stopping on %s", s)
			return 0
		}
	}
}

// serve answers the probes: HTTP /healthz and /ready, TCP, gRPC health.
func serve(ctx context.Context, o workload.Options, start time.Time, logf func(string, ...any)) error {
	if o.HTTP != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			if o.Unhealthy {
				http.Error(w, "unhealthy", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "ok")
		})
		mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
			if time.Since(start) < o.ReadyAfter {
				http.Error(w, "not ready yet", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "ready")
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "chain-workload") })
		l, err := net.Listen("tcp", o.HTTP)
		if err != nil {
			return err
		}
		go http.Serve(l, mux) //nolint:errcheck // ends with the process
		logf("serving HTTP on %s", l.Addr())
	}
	if o.TCP != "" {
		l, err := net.Listen("tcp", o.TCP)
		if err != nil {
			return err
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		logf("accepting TCP on %s", l.Addr())
	}
	if o.GRPC != "" {
		l, err := net.Listen("tcp", o.GRPC)
		if err != nil {
			return err
		}
		s := grpc.NewServer()
		healthpb.RegisterHealthServer(s, health.NewServer())
		go s.Serve(l) //nolint:errcheck // ends with the process
		go func() { <-ctx.Done(); s.Stop() }()
		logf("serving gRPC health on %s", l.Addr())
	}
	return nil
}

// alloc allocates and touches mib MiB a second until the cgroup's limit
// kills the process.
func alloc(mib int, logf func(string, ...any)) {
	var held [][]byte
	for total := mib; ; total += mib {
		b := make([]byte, mib<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		held = append(held, b)
		logf("holding %d MiB", total)
		time.Sleep(time.Second)
	}
}

func fill(path string, mib int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	chunk := make([]byte, 1<<20)
	for i := 0; i < mib; i++ {
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(f.Sync(), f.Close())
}

// pause is the sandbox's process: it holds the pod's namespaces, reaps the
// orphans it inherits as PID 1, and exits on SIGTERM or SIGINT.
func pause() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
