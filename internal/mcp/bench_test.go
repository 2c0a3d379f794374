package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/diagnose"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// BenchmarkAnswerSizes prints what the diagnose tool's answer costs an
// assistant, over every capture of testdata/captures: the decided report's
// tokens (bytes/4, an approximation) at the median and the largest, the
// full report's largest, and a listing page of all of them as one
// namespace each. Run: go test -run '^$' -bench AnswerSizes ./internal/mcp
func BenchmarkAnswerSizes(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", "*.yaml"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no captures: %v", err)
	}
	var reports []chain.Report
	for _, f := range files {
		data, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		bundle, err := capture.Load(data)
		data.Close()
		if err != nil {
			continue
		}
		snap, err := bundle.Read("", chain.Ref{})
		if err != nil {
			continue
		}
		reports = append(reports, *diagnose.Walk(snap, diagnose.Options{Grace: diagnose.DefaultGrace}))
	}
	var decidedTokens, fullTokens []int
	var first *listOut
	for b.Loop() {
		decidedTokens, fullTokens = decidedTokens[:0], fullTokens[:0]
		for i := range reports {
			decidedTokens = append(decidedTokens, sizeOf(decided(&reports[i])).Tokens)
			fullTokens = append(fullTokens, sizeOf(&reports[i]).Tokens)
		}
		first, err = page(chain.NewReportList(reports, 0), "", DefaultLimit, false)
		if err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(decidedTokens)
	slices.Sort(fullTokens)
	b.ReportMetric(float64(len(reports)), "reports")
	b.ReportMetric(float64(decidedTokens[len(decidedTokens)/2]), "decided-median-tokens")
	b.ReportMetric(float64(decidedTokens[len(decidedTokens)-1]), "decided-max-tokens")
	b.ReportMetric(float64(fullTokens[len(fullTokens)-1]), "full-max-tokens")
	b.ReportMetric(float64(first.Size.Tokens), "first-page-tokens")
	b.ReportMetric(float64(first.Unhealthy), "unhealthy")
}
