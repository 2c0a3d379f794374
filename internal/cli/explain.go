package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/paste"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// Explanation is one decoded message as `kubectl chain explain -o json`
// prints it.
type Explanation = engine.Explanation

func newExplainCommand(o *Options) *cobra.Command {
	var reason string
	var files []string
	cmd := &cobra.Command{
		Use:   "explain [MESSAGE]",
		Short: "Decode one raw scheduler, kubelet or controller message into causes and next steps",
		Long: `explain decodes one raw message, or each event of kubectl get events output,
into causes and next steps, with no cluster. Given a whole kubectl describe
(or a kubectl get pods table) instead, it walks what the text shows, as
kubectl chain -f does.`,
		Example: `  kubectl chain explain "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s)."
  kubectl chain explain --reason CreateContainerConfigError 'configmap "app-config" not found'
  kubectl get events -o json | kubectl chain explain -f -
  kubectl describe pod web-7d4b9c6f5-x2x7q | kubectl chain explain -f -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var items []Explanation
			switch {
			case len(files) > 0 && len(args) > 0:
				return usageErrorf("give a message or -f, not both")
			case len(args) > 0 && described(strings.Join(args, " ")):
				// A whole describe given as the message: walk it.
				return o.walkPasted(cmd.Context(), []string{"-"}, []byte(strings.Join(args, " ")))
			case len(files) > 0:
				stdin, err := readStdin(files, o.In)
				if err != nil {
					return err
				}
				b, err := o.loadEvents(files, stdin)
				if err != nil {
					return err
				}
				if b.Described() {
					return o.walkPasted(cmd.Context(), files, stdin)
				}
				for _, e := range b.Events {
					items = append(items, engine.Explain(e.Reason, e.Message, fmt.Sprintf("%s/%s", strings.ToLower(e.Object.Kind), e.Object.Name)))
				}
			case len(args) == 0:
				return usageErrorf(`give the message to explain in quotes: kubectl chain explain "0/3 nodes are available: ..."`)
			default:
				items = append(items, engine.Explain(reason, strings.Join(args, " "), ""))
			}
			return o.printExplanations(items)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "the reason that came with the message (event reason, condition reason or waiting reason)")
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "explain every event in kubectl get events -o json|yaml output (- reads stdin)")
	return cmd
}

// described says a message is kubectl output that shows objects (a
// whole describe, a get pods table), not one message or only events.
func described(msg string) bool {
	if !paste.Looks([]byte(msg)) {
		return false
	}
	b, err := engine.LoadFiles([]string{"-"}, strings.NewReader(msg), io.Discard)
	return err == nil && b.Described()
}

// readStdin reads standard input whole when files name it ("-"): explain
// reads it twice, to tell events from a paste to walk.
func readStdin(files []string, in io.Reader) ([]byte, error) {
	if !slices.Contains(files, "-") {
		return nil, nil
	}
	return io.ReadAll(in)
}

// walkPasted walks kubectl output pasted whole, as kubectl chain -f
// does: the verdict, its exit code and what the text lacks.
func (o *Options) walkPasted(ctx context.Context, files []string, stdin []byte) error {
	walk := *o
	walk.Files, walk.In = files, bytes.NewReader(stdin)
	req, err := walk.Complete(nil)
	if err != nil {
		return err
	}
	return walk.Run(ctx, req)
}

// loadEvents reads -f files that may hold only events (stdin as read).
func (o *Options) loadEvents(files []string, stdin []byte) (*capture.Bundle, error) {
	all, err := engine.LoadFiles(files, bytes.NewReader(stdin), io.Discard)
	if err != nil {
		return nil, err
	}
	if all.Described() {
		return all, nil
	}
	if len(all.Events) == 0 {
		return nil, usageErrorf("no events in %v: expected kubectl get events -o json (or -o yaml)", files)
	}
	chain.SortEvents(all.Events)
	return all, nil
}

func (o *Options) printExplanations(items []Explanation) error {
	switch o.Output.Format {
	case "json":
		if err := render.JSON(o.Out, items); err != nil {
			return err
		}
		return unexplained(items)
	case "yaml":
		if err := render.YAML(o.Out, items); err != nil {
			return err
		}
		return unexplained(items)
	case "text":
	default:
		return usageErrorf("explain prints text, json or yaml, not %q", o.Output.Format)
	}
	unknown, normal := 0, 0
	var b strings.Builder
	for _, it := range items {
		if len(it.Causes) == 0 {
			if it.Normal != "" {
				normal++
			} else {
				unknown++
			}
			if len(items) > 1 {
				continue
			}
		}
		if it.Object != "" {
			fmt.Fprintf(&b, "%s %s: %s\n", it.Object, it.Reason, it.Message)
		}
		switch {
		case len(it.Causes) > 0:
		case it.Normal != "":
			b.WriteString("not a failure: " + it.Normal + "\n")
		default:
			b.WriteString("no known cause: kubectl chain causes lists what it decodes\n")
		}
		for _, c := range it.Causes {
			fmt.Fprintf(&b, "%s (%s): %s\n  next: %s\n", c.ID, engine.LinkName(c.Link), c.Summary, c.NextStep)
			for _, d := range c.Details {
				fmt.Fprintf(&b, "  %s: %s\n", d.Key, d.Value)
			}
		}
		if len(items) > 1 {
			b.WriteString("\n")
		}
	}
	if len(items) > 1 {
		fmt.Fprintf(&b, "%d events, %d without a known cause, %d of a pod that goes well (not failures)\n", len(items), unknown, normal)
	}
	if _, err := io.WriteString(o.Out, b.String()); err != nil {
		return err
	}
	return unexplained(items)
}

// unexplained is the exit for explanations none of which named a cause:
// scripts can tell "decoded" (0) from "not known" (ExitUnexplained).
func unexplained(items []Explanation) error {
	for _, it := range items {
		if len(it.Causes) > 0 || it.Normal != "" {
			return nil
		}
	}
	return &ExitError{Code: ExitUnexplained, Err: errors.New("no known cause"), Silent: true}
}
