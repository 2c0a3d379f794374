package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// printer is the command line's sink of the engine's verdicts: the one way
// a command's reports leave it, whatever read them (live, files, a wait)
// and however many there are.
type printer struct {
	o *Options
	// live redraws one target's progress on a terminal; last is the
	// progress line last printed otherwise, and lastOf each one's of
	// several, by namespace, kind and name.
	live   *render.Live
	last   string
	lastOf map[string]string
}

func (o *Options) printer() *printer {
	p := &printer{o: o, lastOf: map[string]string{}}
	if o.Output.Format == "text" && o.Output.tty {
		p.live = render.NewLive(o.Out, o.Output.render)
	}
	return p
}

// Reports prints the reports in the chosen format (one target's report
// alone, several as a list with a summary), GitHub Actions annotations when
// the job runs there and the output is text, and returns the worst verdict
// as the error whose exit code main uses.
func (p *printer) Reports(l *chain.ReportList, single bool) error {
	o := p.o
	if err := p.write(l, single); err != nil {
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

// NotFound prints the report of a target that does not exist for a
// machine (-o json, yaml, ...): it gets a report even for a typo. Text
// says it in the error alone.
func (p *printer) NotFound(r *chain.Report) error {
	if p.o.Output.Format == "text" {
		return nil
	}
	return p.write(one(r), true)
}

// write prints the reports only: one target's report alone (json and yaml
// print the Report, not a list), several as a list.
func (p *printer) write(l *chain.ReportList, single bool) error {
	o := p.o
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

// Progress shows a wait's reports: one target's as a redrawn frame on a
// terminal, else one plain line per change (on stderr when stdout carries
// JSON/YAML); several as a line per workload whose progress changes.
func (p *printer) Progress(l *chain.ReportList, single bool, elapsed time.Duration) error {
	if single && len(l.Items) == 1 {
		r := &l.Items[0]
		if p.live != nil {
			return p.live.Draw(r, elapsed)
		}
		line := render.Progress(r, 0)
		if line == p.last {
			return nil
		}
		p.last = line
		_, err := fmt.Fprintln(p.progressOut(), render.Progress(r, elapsed))
		return err
	}
	for _, r := range l.Items {
		// Keyed by kind too: a Deployment and a Service of one name each
		// keep their own last line, so neither is printed every tick.
		id := r.Context + "/" + r.Namespace + "/" + string(r.Kind) + "/" + r.Name
		if line := render.ProgressOfMany(&r, 0); p.lastOf[id] != line {
			p.lastOf[id] = line
			if _, err := fmt.Fprintln(p.progressOut(), render.ProgressOfMany(&r, elapsed)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Clear removes the live frame before the engine says something on
// standard error.
func (p *printer) Clear() {
	if p.live != nil {
		p.live.Clear()
	}
}

// progressOut is where progress lines go: stdout for text, stderr when
// stdout carries a machine format.
func (p *printer) progressOut() io.Writer {
	if p.o.Output.Format == "text" {
		return p.o.Out
	}
	return p.o.ErrOut
}

// one is the list of a single target's report.
func one(r *chain.Report) *chain.ReportList {
	return chain.NewReportList([]chain.Report{*r}, r.Requests)
}
