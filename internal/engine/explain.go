package engine

import (
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// Explanation is one decoded message as `kubectl chain explain -o json`
// prints it.
type Explanation struct {
	Object  string        `json:"object,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	Message string        `json:"message"`
	Causes  []ExplainedAs `json:"causes"`
	// Normal says what a Normal event of a pod that goes well reports
	// (an image present or pulled, a container started): not a failure.
	Normal string `json:"normal,omitempty"`
}

// ExplainedAs is one cause a message decodes to.
type ExplainedAs struct {
	ID       chain.CauseID       `json:"id"`
	Link     chain.LinkID        `json:"link"`
	Summary  string              `json:"summary"`
	NextStep string              `json:"nextStep"`
	Terminal decode.TerminalRule `json:"terminal"`
	Details  []chain.Detail      `json:"details,omitempty"`
}

// Explain decodes one raw message (an event's, a condition's, a container
// state's) with the reason that came with it into the causes it names;
// object names what it was seen on, if known.
func Explain(reason, message, object string) Explanation {
	e := Explanation{Object: object, Reason: reason, Message: message, Causes: []ExplainedAs{}}
	e.Normal, _ = decode.NormalEvent(strings.TrimSpace(message))
	for _, d := range decode.Explain(reason, message) {
		c, _ := decode.Lookup(d.Cause)
		a := ExplainedAs{ID: d.Cause, Link: c.Link, Summary: d.Summary, NextStep: d.NextStep, Terminal: c.Terminal, Details: d.Details}
		if a.Summary == "" {
			a.Summary = c.Summary
		}
		if a.NextStep == "" {
			a.NextStep = c.NextStep
		}
		e.Causes = append(e.Causes, a)
	}
	return e
}

// LinkName is a cause's link as a person reads it.
func LinkName(l chain.LinkID) string {
	if l == "" {
		return "any link"
	}
	return string(l)
}
