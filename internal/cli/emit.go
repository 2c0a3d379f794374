package cli

import (
	"fmt"
	"os"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// emit is the one way a command's reports leave it, whatever read them
// (live, files, a wait) and however many there are: the reports in the
// chosen format (one target's report alone, several as a list with a
// summary), GitHub Actions annotations when the job runs there and the
// output is text, and the worst verdict as the error whose exit code main
// uses.
func (o *Options) emit(l *chain.ReportList, single bool) error {
	if err := o.write(l, single); err != nil {
		return err
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" && o.Output.Format == "text" {
		if err := render.Annotations(o.Out, l); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the annotations: %w", err)}
		}
	}
	if l.Health != chain.Healthy {
		return &VerdictError{Health: l.Health}
	}
	return nil
}

// write prints the reports only: one target's report alone (json and yaml
// print the Report, not a list), several as a list.
func (o *Options) write(l *chain.ReportList, single bool) error {
	var err error
	if single && len(l.Items) == 1 {
		err = o.Output.print(o.Out, &l.Items[0])
	} else {
		err = o.Output.printList(o.Out, l)
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the report: %w", err)}
	}
	return nil
}

// one is the list of a single target's report.
func one(r *chain.Report) *chain.ReportList {
	return chain.NewReportList([]chain.Report{*r}, r.Requests)
}
