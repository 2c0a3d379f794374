package serve

import (
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// RuleOptions are the knobs of the alert rules: how long a verdict must
// hold before its alert fires, and the scrape job serve's metrics come
// from (for the watcher's own alerts).
type RuleOptions struct {
	// Broken is how long a workload stays broken before WorkloadBroken
	// fires; Progressing how long it may stay progressing before
	// WorkloadProgressingTooLong does.
	Broken, Progressing time.Duration
	// Down is how long the watcher is not scraped, or judges nothing,
	// before KubectlChainDown or KubectlChainNotJudging fires.
	Down time.Duration
	// Job is the scrape job of serve's metrics.
	Job string
}

// DefaultRuleOptions are the rules' defaults: kubectl chain's verdicts
// already wait out the blips a grace covers, so 5 minutes broken is
// broken; an hour progressing is a rollout stuck.
var DefaultRuleOptions = RuleOptions{Broken: 5 * time.Minute, Progressing: time.Hour, Down: 5 * time.Minute, Job: Name}

// promDuration is d as Prometheus spells a duration ("5m", "1h", "30s").
func promDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", d/time.Millisecond)
}

// ruleGroups are the alert rules, as Prometheus' rule files and the
// Prometheus Operator's PrometheusRule hold them. A fleet's series carry
// the labels Prometheus gives each scrape (cluster, from the target's
// labels or external labels, federation, remote write): the rules keep
// every label but the instance and pod, so an alert names its cluster and
// survives the watcher's restart.
func ruleGroups(o RuleOptions) []any {
	job := fmt.Sprintf(`job=%q`, o.Job)
	return []any{map[string]any{
		"name": "kubectl-chain",
		"rules": []any{
			map[string]any{
				"alert":  "WorkloadBroken",
				"expr":   "max without (instance, pod) (kubectl_chain_workload_broken_info) == 1",
				"for":    promDuration(o.Broken),
				"labels": map[string]any{"severity": "warning"},
				"annotations": map[string]any{
					"summary":     "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} is broken at {{ $labels.link }}: {{ $labels.cause }}",
					"description": "kubectl chain names the first broken link of the workload's chain. Run kubectl chain {{ $labels.kind }}/{{ $labels.name }} -n {{ $labels.namespace }} for the evidence and the next step.",
				},
			},
			map[string]any{
				"alert": "WorkloadProgressingTooLong",
				"expr": fmt.Sprintf("max without (instance, pod) (kubectl_chain_workload_health == 2 and (time() - kubectl_chain_workload_verdict_changed_timestamp_seconds) > %d)",
					int(o.Progressing.Seconds())),
				"for":    promDuration(o.Down),
				"labels": map[string]any{"severity": "warning"},
				"annotations": map[string]any{
					"summary":     fmt.Sprintf("{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} has been progressing for more than %s", promDuration(o.Progressing)),
					"description": "Nothing is broken, but the rollout is not done. Run kubectl chain {{ $labels.kind }}/{{ $labels.name }} -n {{ $labels.namespace }} for what it waits for.",
				},
			},
			map[string]any{
				"alert":  "KubectlChainDown",
				"expr":   fmt.Sprintf("up{%s} == 0 or absent(up{%s})", job, job),
				"for":    promDuration(o.Down),
				"labels": map[string]any{"severity": "warning"},
				"annotations": map[string]any{
					"summary":     "kubectl chain serve is not scraped: no workload alert can fire",
					"description": fmt.Sprintf("Prometheus cannot scrape job %s (kubectl chain serve): check its pod and the scrape configuration.", o.Job),
				},
			},
			map[string]any{
				"alert":  "KubectlChainNotJudging",
				"expr":   fmt.Sprintf("time() - kubectl_chain_last_judgement_timestamp_seconds > %d", int((2 * o.Down).Seconds())),
				"for":    promDuration(o.Down),
				"labels": map[string]any{"severity": "warning"},
				"annotations": map[string]any{
					"summary":     "kubectl chain serve has judged nothing for a while: its verdicts are stale",
					"description": "It answers scrapes but has not judged the workloads lately: check its logs and kubectl_chain_api_errors_total (the API server unreachable, a watch forbidden).",
				},
			},
		},
	}}
}

// Rules is the alert rules as a Prometheus rule file, for rule_files (and
// promtool test rules).
func Rules(o RuleOptions, version string) ([]byte, error) {
	y, err := yaml.Marshal(map[string]any{"groups": ruleGroups(o)})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# kubectl chain %s serve: alert rules over its metrics (docs/serve.md).\n", version)
	b.Write(y)
	return []byte(b.String()), nil
}
