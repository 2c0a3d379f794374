package capture

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestEveryKindIsSelected: each row of the kinds table is selected from a
// capture, and nothing else is.
func TestEveryKindIsSelected(t *testing.T) {
	table := map[chain.Kind]bool{}
	for _, row := range chain.KindTable() {
		table[row.Kind] = true
		sel, err := selectionOf(row.Kind)
		if err != nil {
			t.Errorf("%s: %v", row.Kind, err)
			continue
		}
		if sel.find == nil {
			t.Errorf("%s: no find", row.Kind)
		}
		// Every row's object is found in a bundle that holds it, and
		// stored where its row reads it back.
		obj := row.New()
		obj.SetName("x")
		obj.SetNamespace("ns")
		b := &Bundle{Skipped: map[string]int{}}
		if err := b.add(asJSON(t, row, obj)); err != nil {
			t.Errorf("%s: %v", row.Kind, err)
			continue
		}
		found := sel.find(b, "ns", "x")
		if found == nil {
			t.Errorf("%s: the bundle's object is not found", row.Kind)
			continue
		}
		s := &chain.Snapshot{Kind: row.Kind, Name: "x"}
		row.Store(s, found)
		if got := row.Object(s); got == nil || got.GetName() != "x" {
			t.Errorf("%s: stored %v, read back %v", row.Kind, found, got)
		}
	}
	for k := range selections() {
		if !table[k] {
			t.Errorf("selection for %s, which is no row of the kinds table", k)
		}
	}
	if _, err := selectionOf("Widget"); err == nil {
		t.Error("a kind without a selection is no error")
	}
}

// asJSON is obj as a file holds it, with its apiVersion and kind.
func asJSON(t *testing.T, row chain.KindRow, obj metav1.Object) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = row.API().APIVersion(), string(row.Kind)
	raw, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
