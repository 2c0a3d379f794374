package engine

import (
	"fmt"
	"io"
	"time"

	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// connNotice says on stderr when the API server stops answering a wait's
// watches and when it answers again, once each.
type connNotice struct {
	conn  *kube.Conn
	said  time.Time // the outage last reported, zero when none is
	ended int       // the outages that ended, as last seen
}

// lost says since when the API server has not answered, zero while it
// answers.
func (n *connNotice) lost() (time.Time, string) {
	if n.conn == nil {
		return time.Time{}, ""
	}
	return n.conn.Lost()
}

// check reports a change of the connection; back says the API server
// answers again after an outage that was reported.
func (n *connNotice) check(out io.Writer, clear func(), now time.Time) (back bool) {
	if n.conn == nil {
		return false
	}
	since, why := n.lost()
	ended, last := n.conn.Ended()
	switch {
	case !since.IsZero() && n.said.IsZero():
		if ended > n.ended {
			// An earlier one began and ended since the last look.
			n.sayShort(out, clear, last)
		}
		clear()
		fmt.Fprintf(out, "lost the connection to the API server at %s (%s): still waiting; the watches resume where they left off when it answers\n",
			since.Format(time.TimeOnly), why)
		n.said = since
	case since.IsZero() && !n.said.IsZero():
		clear()
		fmt.Fprintf(out, "the API server answers again, after %s without it: following on\n", now.Sub(n.said).Round(time.Second))
		n.said = time.Time{}
		back = true
	case since.IsZero() && ended > n.ended:
		// An outage shorter than a look: said once it is over.
		n.sayShort(out, clear, last)
		back = true
	}
	n.ended = ended
	return back
}

// sayShort reports an outage that began and ended between two looks.
func (n *connNotice) sayShort(out io.Writer, clear func(), o kube.Outage) {
	clear()
	fmt.Fprintf(out, "lost the connection to the API server at %s (%s) for %s: following on\n",
		o.Since.Format(time.TimeOnly), o.Why, o.Until.Sub(o.Since).Round(100*time.Millisecond))
}

// unreachable is how a wait ends when its timeout comes while the API
// server does not answer: there is no current verdict to give.
func (n *connNotice) unreachable(now time.Time) error {
	since, why := n.lost()
	if since.IsZero() {
		return nil
	}
	return &ExitError{Code: ExitCluster, Err: fmt.Errorf(
		"the API server has not answered since %s (%s ago): %s; the wait ended with no verdict, since the cluster could not be read at its timeout: check the control plane, then run the wait again",
		since.Format(time.TimeOnly), now.Sub(since).Round(time.Second), why)}
}
