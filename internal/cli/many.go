package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// many says the command judges several Deployments: more than one name, a
// label selector, --all or --all-namespaces.
func (o *Options) many() bool {
	return len(o.names) > 1 || o.All || o.Selector != "" || o.AllNamespaces
}

// readAll walks every target once. Named targets cost 4 requests each; a
// selector, --all or -A reads the scope with one paged list per kind, so the
// cost does not grow with the number of Deployments.
func (o *Options) readAll(ctx context.Context, reader *kube.Reader) (*chain.ReportList, error) {
	var reports []chain.Report
	requests := 0
	if len(o.names) > 0 {
		for _, name := range o.names {
			snap, err := reader.Snapshot(ctx, o.namespace, name)
			if err != nil {
				return nil, err
			}
			requests += snap.Requests
			reports = append(reports, *diagnose.Walk(snap, diagnose.Options{Grace: o.Grace}))
		}
		return chain.NewReportList(reports, requests), nil
	}
	ns := o.namespace
	if o.AllNamespaces {
		ns = ""
	}
	bundle, gaps, requests, err := reader.Many(ctx, ns, o.Selector)
	if err != nil {
		return nil, err
	}
	now := o.now()
	// Namespace then name, whatever order the API server listed them in.
	slices.SortFunc(bundle.Deployments, func(a, b appsv1.Deployment) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, d := range bundle.Deployments {
		snap, err := bundle.Snapshot(d.Namespace, d.Name)
		if err != nil {
			return nil, err
		}
		snap.Now, snap.Gaps = now, gaps
		reports = append(reports, *diagnose.Walk(snap, diagnose.Options{Grace: o.Grace}))
	}
	if len(reports) == 0 {
		where := "namespace " + o.namespace
		if o.AllNamespaces {
			where = "any namespace"
		}
		if o.Selector != "" {
			where += " matching " + o.Selector
		}
		return nil, &ExitError{Code: ExitNotFound, Err: fmt.Errorf("no Deployments in %s", where)}
	}
	return chain.NewReportList(reports, requests), nil
}

// runMany judges several Deployments, and with --wait re-reads them every
// pollEvery until each is healthy or terminally broken, or the timeout.
func (o *Options) runMany(ctx context.Context, reader *kube.Reader) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := o.now()
	last := map[string]string{}
	for {
		list, err := o.readAll(ctx, reader)
		if err != nil {
			if ctx.Err() != nil {
				return &ExitError{Code: ExitCluster, Err: fmt.Errorf("timed out after %s reading the Deployments", o.Timeout)}
			}
			return translate(err)
		}
		if !o.Wait || allDone(list) {
			return o.printMany(list)
		}
		for _, r := range list.Items {
			line := render.Progress(&r, 0)
			if key := r.Namespace + "/" + r.Name; last[key] != line {
				last[key] = line
				fmt.Fprintln(o.progressOut(), render.Progress(&r, o.now().Sub(start)))
			}
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(o.ErrOut, "timed out after %s waiting for the rollouts\n", o.Timeout)
			return o.printMany(list)
		case <-time.After(pollEvery):
		}
	}
}

func allDone(l *chain.ReportList) bool {
	for i := range l.Items {
		if !done(&l.Items[i]) {
			return false
		}
	}
	return true
}

// progressOut is where progress lines go: stdout for text, stderr when
// stdout carries a machine format.
func (o *Options) progressOut() io.Writer {
	if o.Output.Format == "text" {
		return o.Out
	}
	return o.ErrOut
}

// printMany prints the list in the chosen format and returns the worst
// verdict for the exit code.
func (o *Options) printMany(l *chain.ReportList) error {
	if err := o.Output.printList(o.Out, l); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the report: %w", err)}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" && o.Output.Format == "text" {
		if err := render.Annotations(o.Out, l); err != nil {
			return err
		}
	}
	if l.Health != chain.Healthy {
		return &VerdictError{Health: l.Health}
	}
	return nil
}
