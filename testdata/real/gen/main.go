// Command gen rebuilds the corpus's incident Lists (testdata/real/lists)
// from their specs (testdata/real/incidents):
//
//	go run ./testdata/real/gen testdata/real
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/internal/corpus"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/real/gen testdata/real")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	incidents, err := corpus.LoadIncidents(root)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "lists")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, in := range incidents {
		data, err := corpus.Build(in)
		if err != nil {
			return err
		}
		name := in.Name + ".yaml"
		keep[name] = true
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if !keep[filepath.Base(p)] && strings.HasSuffix(p, ".yaml") {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%d incident Lists in %s\n", len(incidents), dir)
	return nil
}
