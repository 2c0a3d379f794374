package chain

import (
	"slices"
	"testing"
)

// TestKindTable: every row is whole (a class, an API version, a chain
// that starts at stored, an object it can hold), no spelling names two
// kinds, and the functions that read the table agree with it.
func TestKindTable(t *testing.T) {
	spelled := map[string]Kind{}
	for _, row := range KindTable() {
		if row.Class == "" || row.Version == "" || len(row.Links) == 0 || row.Links[0] != LinkStored {
			t.Errorf("%s: incomplete row %+v", row.Kind, row)
		}
		if row.New() == nil || row.object == nil || row.store == nil {
			t.Errorf("%s: no object accessors", row.Kind)
		}
		if IsResource(row.Kind) {
			t.Errorf("%s: a row's kind is judged as a resource kind", row.Kind)
		}
		if !slices.Equal(ChainOf(row.Kind), row.Links) || Serves(row.Kind) != row.Serves() || IsTraffic(row.Kind) != (row.Class == ClassTraffic) {
			t.Errorf("%s: ChainOf, Serves or IsTraffic disagree with the row", row.Kind)
		}
		for _, s := range row.Spellings() {
			if other, ok := spelled[s]; ok {
				t.Errorf("%q spells both %s and %s", s, other, row.Kind)
			}
			spelled[s] = row.Kind
			if k, ok := KindBySpelling(s); !ok || k != row.Kind {
				t.Errorf("%q: KindBySpelling gives %s", s, k)
			}
		}
		if ref, ok := ParseRef(row.Resource() + "/x"); !ok || ref.Kind != row.Kind {
			t.Errorf("%s: ParseRef gives %v", row.Kind, ref)
		}
	}
	if _, ok := RowOf("Certificate"); ok || !IsResource("Certificate") {
		t.Error("a kind without a row is not a resource kind")
	}
}
