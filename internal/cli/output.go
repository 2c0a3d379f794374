package cli

import (
	"io"
	"os"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/render"
)

// outputFlags are -o and --color, compiled into render options once.
type outputFlags struct {
	Format string
	Color  string

	render render.Options
	tty    bool
}

func (f *outputFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Format, "output", "o", "text", "output format: text, json, yaml, junit (a test case per Deployment) or markdown (for CI step summaries)")
	fs.StringVar(&f.Color, "color", "auto", "color the text output: auto (only on a terminal, and not when NO_COLOR is set), always or never")
}

// complete decides color and width for the writer results go to.
func (f *outputFlags) complete(out io.Writer) error {
	switch f.Format {
	case "text", "json", "yaml", "junit", "markdown":
	default:
		return usageErrorf("unknown output format %q: use one of text, json, yaml, junit, markdown", f.Format)
	}
	tty, width := terminal(out)
	f.tty = tty
	switch f.Color {
	case "always":
		f.render.Color = true
	case "never":
		f.render.Color = false
	case "auto":
		// no-color.org: NO_COLOR set and not empty turns color off.
		noColor := os.Getenv("NO_COLOR") != ""
		f.render.Color = tty && !noColor && os.Getenv("TERM") != "dumb"
	default:
		return usageErrorf("unknown --color %q: use auto, always or never", f.Color)
	}
	f.render.Width = width
	return nil
}

func (f *outputFlags) print(out io.Writer, r *chain.Report) error {
	switch f.Format {
	case "json":
		return render.JSON(out, r)
	case "yaml":
		return render.YAML(out, r)
	case "junit", "markdown":
		return f.printList(out, chain.NewReportList([]chain.Report{*r}, r.Requests))
	}
	return render.Text(out, r, f.render)
}

// printList prints several reports: JSON and YAML as one ReportList, text
// as the full report of each Deployment that is not healthy followed by a
// summary table of all.
func (f *outputFlags) printList(out io.Writer, l *chain.ReportList) error {
	switch f.Format {
	case "json":
		return render.JSON(out, l)
	case "yaml":
		return render.YAML(out, l)
	case "junit":
		return render.JUnit(out, l)
	case "markdown":
		return render.Markdown(out, l)
	}
	for i := range l.Items {
		if l.Items[i].Verdict.Health == chain.Healthy {
			continue
		}
		if err := render.Text(out, &l.Items[i], f.render); err != nil {
			return err
		}
		if _, err := io.WriteString(out, "\n"); err != nil {
			return err
		}
	}
	return render.Summary(out, l, f.render)
}

// terminal says whether out is a terminal, and its width when it is.
func terminal(out io.Writer) (bool, int) {
	file, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(file.Fd())) {
		return false, 0
	}
	w, _, err := term.GetSize(int(file.Fd()))
	if err != nil {
		return true, 0
	}
	return true, w
}
