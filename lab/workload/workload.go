// Package workload is the command line of chain-workload, the program in
// every image of the lab's registry: what it is asked to do. The program
// (lab/cmd/chain-workload) does it on a real node; the simulated kubelet reads
// the same flags from a container's args to play the same behaviour, so one
// scenario manifest means the same on both kinds of node.
package workload

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// Options are chain-workload's flags.
type Options struct {
	HTTP, TCP, GRPC string
	// Exit, when 0 or more, is the code the program exits with after After.
	Exit  int
	After time.Duration
	// StartDelay is slept before serving; ReadyAfter is how long /ready
	// answers 503 after the start.
	StartDelay, ReadyAfter time.Duration
	// Unhealthy makes /healthz answer 503.
	Unhealthy bool
	// AllocMB is allocated (and touched) every second, without end;
	// WriteMB is written to To once.
	AllocMB, WriteMB  int
	To                string
	IgnoreTerm, Quiet bool
}

// Parse reads args, then the CHAIN_* environment for flags args did not set.
func Parse(args []string, env func(string) string) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("chain-workload", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.HTTP, "http", ":8080", "serve HTTP on this address (empty: no HTTP)")
	fs.StringVar(&o.TCP, "tcp", "", "accept TCP connections on this address")
	fs.StringVar(&o.GRPC, "grpc", "", "serve the gRPC health service on this address")
	fs.IntVar(&o.Exit, "exit", -1, "exit with this code (after --after)")
	fs.DurationVar(&o.After, "after", 0, "with --exit: how long to run first")
	fs.DurationVar(&o.StartDelay, "start-delay", 0, "sleep this long before serving")
	fs.DurationVar(&o.ReadyAfter, "ready-after", 0, "/ready answers 503 until this long after the start")
	fs.BoolVar(&o.Unhealthy, "unhealthy", false, "/healthz answers 503")
	fs.IntVar(&o.AllocMB, "alloc-mb", 0, "allocate and touch this many MiB a second, without end")
	fs.IntVar(&o.WriteMB, "write-mb", 0, "write this many MiB to --to, then go on")
	fs.StringVar(&o.To, "to", "/tmp/chain-workload.fill", "the file --write-mb writes")
	fs.BoolVar(&o.IgnoreTerm, "ignore-sigterm", false, "do not stop on SIGTERM")
	fs.BoolVar(&o.Quiet, "quiet", false, "log nothing")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, name := range names {
		key := "CHAIN_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v := env(key); v != "" {
			if err := fs.Set(name, v); err != nil {
				return o, fmt.Errorf("%s=%q: %v", key, v, err)
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (flags: --exit, --after, --alloc-mb, --write-mb, --start-delay, --ready-after, --unhealthy, --ignore-sigterm, --http, --tcp, --grpc; or pause)", fs.Arg(0))
	}
	return o, nil
}

// What answers on one of the program's listeners (lab/cmd/chain-workload
// serve): an HTTP server (/healthz, /ready, and 200 on any other path), a
// TCP socket that accepts a connection and closes it at once, or the gRPC
// health service.
const (
	ServesHTTP = "http"
	ServesTCP  = "tcp"
	ServesGRPC = "grpc"
)

// Listener is one address the program listens on, as given to
// net.Listen("tcp", Addr), and what answers there.
type Listener struct {
	Addr, Serves string
}

// Listeners are the addresses the program listens on once it serves, in
// the order it opens them: --http, --tcp, --grpc, each unless empty.
func (o Options) Listeners() []Listener {
	var out []Listener
	for _, l := range []Listener{{o.HTTP, ServesHTTP}, {o.TCP, ServesTCP}, {o.GRPC, ServesGRPC}} {
		if l.Addr != "" {
			out = append(out, l)
		}
	}
	return out
}
