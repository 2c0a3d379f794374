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

// Severity orders healths by how badly a gate should fail: broken 3,
// unknown 2, progressing 1, healthy 0.
func Severity(h Health) int {
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

// Worst is the worse of two healths (Severity).
func Worst(a, b Health) Health {
	if Severity(b) > Severity(a) {
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
