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

var formats = []string{"text", "json", "yaml"}

func (f *outputFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Format, "output", "o", "text", "output format: text, json or yaml")
	fs.StringVar(&f.Color, "color", "auto", "color the text output: auto (only on a terminal, and not when NO_COLOR is set), always or never")
}

// complete decides color and width for the writer results go to.
func (f *outputFlags) complete(out io.Writer) error {
	switch f.Format {
	case "text", "json", "yaml":
	default:
		return usageErrorf("unknown output format %q: use one of text, json, yaml", f.Format)
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
	}
	return render.Text(out, r, f.render)
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
