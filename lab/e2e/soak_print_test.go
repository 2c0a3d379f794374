package e2e

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// soakRow is one fault's figures for one gate.
type soakRow struct {
	runs, falseFail, missed int
	took                    []time.Duration
}

func printSoak(runs []soakRun, faults []soakFault) {
	heals := map[string]bool{}
	var order []string
	for _, f := range faults {
		if _, seen := heals[f.name]; !seen {
			order = append(order, f.name)
		}
		heals[f.name] = f.heals
	}
	rows := map[string]map[string]*soakRow{}
	invalid := map[string]int{}
	for _, r := range runs {
		if r.completed != heals[r.fault] {
			invalid[r.fault]++ // the fault did not do what it should: not counted
			continue
		}
		for gate, g := range r.gates {
			if rows[r.fault] == nil {
				rows[r.fault] = map[string]*soakRow{}
			}
			row := rows[r.fault][gate]
			if row == nil {
				row = &soakRow{}
				rows[r.fault][gate] = row
			}
			row.runs++
			switch {
			case heals[r.fault] && g.code != 0:
				row.falseFail++
			case !heals[r.fault] && (g.code == 0 || g.timedOut):
				row.missed++
			default:
				row.took = append(row.took, g.took)
			}
		}
	}
	fmt.Printf("\nsoak: %d rollouts, each followed by the three gates at once (--timeout %v; %v for the readiness twins)\n", len(runs), soakTimeout, progressDeadline+time.Minute)
	fmt.Printf("%-26s %-6s %-24s %5s %6s %7s %8s %8s\n", "FAULT", "HEALS", "GATE", "RUNS", "FALSE", "MISSED", "MEDIAN", "P95")
	for _, name := range order {
		for _, gate := range []string{gateChain, gateRollout, gateKstatus} {
			row := rows[name][gate]
			if row == nil {
				continue
			}
			med, p95 := quantiles(row.took)
			fmt.Printf("%-26s %-6s %-24s %5d %6d %7d %8s %8s\n", name, yesNo(heals[name]), gate, row.runs, row.falseFail, row.missed, med, p95)
		}
		if n := invalid[name]; n > 0 {
			fmt.Printf("%-26s %d run(s) left out: the rollout %s\n", name, n, map[bool]string{true: "never completed", false: "completed"}[heals[name]])
		}
	}
}

// quantiles are the median and 95th percentile of the verdict times the
// gate gave ("-" when it gave none).
func quantiles(d []time.Duration) (string, string) {
	if len(d) == 0 {
		return "-", "-"
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) string {
		i := int(q*float64(len(d)-1) + 0.5)
		return strconv.FormatFloat(d[i].Seconds(), 'f', 1, 64) + "s"
	}
	return at(0.5), at(0.95)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
