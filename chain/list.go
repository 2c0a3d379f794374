package chain

// ReportList is the result of walking several Deployments: what -o json
// prints for more than one target. Health is the worst of the items', so a
// pipeline can read one field.
type ReportList struct {
	Schema string   `json:"schema"`
	Kind   string   `json:"kind"`
	Health Health   `json:"health"`
	Items  []Report `json:"items"`
	// Requests is what reading all of them cost.
	Requests int `json:"requests"`
}

// Worst orders healths by how badly a gate should fail: broken, then
// unknown, then progressing, then healthy.
func Worst(a, b Health) Health {
	rank := func(h Health) int {
		switch h {
		case Broken:
			return 3
		case Unknown:
			return 2
		case Progressing:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// NewReportList wraps reports, computing the worst health.
func NewReportList(items []Report, requests int) *ReportList {
	l := &ReportList{Schema: SchemaVersion, Kind: "ReportList", Health: Healthy, Items: items, Requests: requests}
	for _, r := range items {
		l.Health = Worst(l.Health, r.Verdict.Health)
	}
	return l
}
