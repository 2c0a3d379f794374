package engine

import (
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Sink is where a run's verdicts go: the command line's printer, MCP's
// structured results. The engine decides what is judged and when; the sink
// only says it, so every front gives the same verdicts.
type Sink interface {
	// Reports takes the run's reports once they are final: single says
	// one target was named, whose report stands alone rather than in a
	// list. Its error is the run's.
	Reports(l *chain.ReportList, single bool) error
	// Progress takes the reports of a followed run (Wait) that is not
	// over yet, elapsed since the follow began.
	Progress(l *chain.ReportList, single bool, elapsed time.Duration) error
	// NotFound takes the report of the one target named when it does not
	// exist (the stored link broken with DeploymentNotFound or
	// WorkloadNotFound), before the run ends with the not-found error.
	NotFound(r *chain.Report) error
	// Clear removes a live view of the progress before the engine says
	// something beside the reports.
	Clear()
}

// one is the list of a single target's report.
func one(r *chain.Report) *chain.ReportList {
	return chain.NewReportList([]chain.Report{*r}, r.Requests)
}
