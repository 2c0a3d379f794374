// Package render prints reports and the cause catalogue for people (text with
// optional color), for programs (JSON and YAML) and for the docs
// (Markdown). It is the only package that knows about terminals: chain and
// diagnose decide, render only prints.
package render

// defaultWidth is used when the caller does not know the terminal's width
// (output piped to a file or a CI log).
const defaultWidth = 100

// Options are the caller's decisions about the terminal, so that rendering
// itself never inspects the environment and stays deterministic in tests.
type Options struct {
	// Color is decided by the caller from --color, NO_COLOR and whether the
	// output is a terminal. When false the output has no escape codes.
	Color bool
	// Width is the terminal width in cells; 0 means 100.
	Width int
}

// width returns the wrapping width, defaulting when unknown.
func (o Options) width() int {
	if o.Width <= 0 {
		return defaultWidth
	}
	return o.Width
}
