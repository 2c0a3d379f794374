package render

import (
	"fmt"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// writeReplicaSets prints the ReplicaSets as a compact table when a rollout
// has more than one: which one is new and which old ones still serve.
func writeReplicaSets(p *printer, rss []chain.ReplicaSetSummary) {
	if len(rss) < 2 {
		return
	}
	rows := [][]string{{"REPLICASET", "REVISION", "ROLE", "DESIRED", "CURRENT", "READY", "AVAILABLE"}}
	for _, rs := range rss {
		role := "old"
		if rs.Current {
			role = "new"
		}
		rows = append(rows, []string{
			rs.Name, rs.Revision, role,
			fmt.Sprint(rs.Desired), fmt.Sprint(rs.Replicas), fmt.Sprint(rs.Ready), fmt.Sprint(rs.Available),
		})
	}
	p.blank()
	for i, line := range table(rows) {
		r := rolePlain
		if i == 0 {
			r = roleDim
		}
		p.line(span{role: rolePlain, text: strings.Repeat(" ", linkIndent)}, span{role: r, text: line})
	}
}

// table pads columns to their widest cell, two spaces apart, without
// trailing spaces.
func table(rows [][]string) []string {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len(cell))
		}
	}
	out := make([]string, len(rows))
	for r, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len(cell)+2))
			}
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	return out
}
