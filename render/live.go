package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Progress is one plain line describing a report while --wait follows a
// rollout, for CI logs: no color, no control characters, one line per
// change. elapsed is the caller's; rendering never reads the clock.
func Progress(r *chain.Report, elapsed time.Duration) string {
	return progress(r, elapsed, qualified(r))
}

// ProgressOfMany is Progress for one of several objects followed at once,
// named with its kind as the summary table names it (shop
// deployment/web), since a release often holds a Deployment, a Service
// and an Ingress of one name.
func ProgressOfMany(r *chain.Report, elapsed time.Duration) string {
	name := kindOf(r) + "/" + r.Name
	if r.Namespace != "" {
		name = r.Namespace + " " + name
	}
	if r.Context != "" {
		name = r.Context + " " + name
	}
	return progress(r, elapsed, name)
}

func progress(r *chain.Report, elapsed time.Duration, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s %s", elapsedString(elapsed), name, r.Verdict.Health)
	if r.Verdict.Link != "" {
		fmt.Fprintf(&b, " at %s", r.Verdict.Link)
	}
	if r.Verdict.Summary != "" {
		fmt.Fprintf(&b, ": %s", r.Verdict.Summary)
	}
	if r.Verdict.Cause != "" {
		fmt.Fprintf(&b, " (%s)", r.Verdict.Cause)
	}
	return strings.Join(strings.Fields(escape(b.String())), " ")
}

// Live redraws a compact view of the chain in place on a terminal while
// --wait follows a rollout: the verdict line and one row per link.
type Live struct {
	w     io.Writer
	o     Options
	lines int
}

// NewLive returns a live view writing to w, which must be a terminal.
func NewLive(w io.Writer, o Options) *Live {
	return &Live{w: w, o: o}
}

// Draw replaces the previous frame with the report's.
func (l *Live) Draw(r *chain.Report, elapsed time.Duration) error {
	p := newPrinter(l.w, l.o)
	head := []span{
		{role: roleDim, text: fmt.Sprintf("waiting %s ", elapsedString(elapsed))},
		{role: roleBold, text: r.Namespace + "/" + r.Name},
		{role: rolePlain, text: "  "},
	}
	p.line(append(head, fitSpans(verdictSpans(r.Verdict), l.o.width()-lenSpans(head))...)...)
	idWidth := linkIDWidth(r.Links)
	for _, link := range r.Links {
		mark := statusRole(link.Status)
		row := []span{
			{role: rolePlain, text: "  "},
			{role: mark, text: statusMark(link.Status)},
			{role: rolePlain, text: " " + string(link.ID) + strings.Repeat(" ", idWidth-len(link.ID)+2)},
		}
		summary := link.Summary
		if link.Status == chain.StatusNotReached && summary == "" {
			summary = "not reached"
		}
		p.line(append(row, fitSpans([]span{{role: rolePlain, text: summary}}, l.o.width()-lenSpans(row))...)...)
	}
	frame := p.b.String()
	if err := l.Clear(); err != nil {
		return err
	}
	l.lines = strings.Count(frame, "\n")
	_, err := io.WriteString(l.w, frame)
	return err
}

// Clear erases the last frame, so the final report prints in its place.
func (l *Live) Clear() error {
	if l.lines == 0 {
		return nil
	}
	_, err := fmt.Fprintf(l.w, "\x1b[%dA\x1b[J", l.lines)
	l.lines = 0
	return err
}

// fitSpans cuts spans to width cells so a frame row never wraps (a wrapped
// row would break the cursor arithmetic of the next redraw).
func fitSpans(spans []span, width int) []span {
	var out []span
	for _, s := range spans {
		r := []rune(escape(s.text))
		if width <= 0 {
			break
		}
		if len(r) > width {
			out = append(out, span{role: s.role, text: string(r[:max(width-1, 0)]) + "…"})
			break
		}
		out = append(out, s)
		width -= len(r)
	}
	return out
}

func lenSpans(spans []span) int {
	n := 0
	for _, s := range spans {
		n += len([]rune(s.text))
	}
	return n
}

// elapsedString is a wait's running time to the second ("1m15s"): unlike
// ages, a countdown must move every second.
func elapsedString(d time.Duration) string {
	return d.Round(time.Second).String()
}
