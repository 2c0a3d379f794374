package kube

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestEveryKindHasARecipe: each row of the kinds table is read and
// followed by a recipe, and nothing else is: a kind added to the table
// without one fails here, not as a silent fall into the any-kind walk.
func TestEveryKindHasARecipe(t *testing.T) {
	table := map[chain.Kind]bool{}
	for _, row := range chain.KindTable() {
		table[row.Kind] = true
		rec, err := recipeOf(row.Kind)
		if err != nil {
			t.Errorf("%s: %v", row.Kind, err)
			continue
		}
		if (rec.read == nil) == (rec.get == nil) {
			t.Errorf("%s: a recipe reads with a reader of its own or with a GET, not both or neither", row.Kind)
		}
		if (row.Class == chain.ClassTraffic) != (rec.traffic != nil) || rec.traffic != nil && (rec.traffic.get == nil || len(rec.traffic.follows) == 0) {
			t.Errorf("%s: a traffic kind's recipe, and only one, says how to GET it and what it follows", row.Kind)
		}
	}
	for k := range recipes() {
		if !table[k] {
			t.Errorf("recipe for %s, which is no row of the kinds table", k)
		}
	}
	if _, err := recipeOf("Widget"); err == nil {
		t.Error("a kind without a recipe is no error")
	}
}

// TestEveryKindIsPermitted: each row of the kinds table's objects may be
// got, listed and watched under Permissions (and so under the Role and
// ClusterRole `kubectl chain rbac` prints).
func TestEveryKindIsPermitted(t *testing.T) {
	for _, row := range chain.KindTable() {
		api := row.API()
		found := false
		for _, p := range Permissions {
			if p.Group == api.Group && p.Resource == api.Resource {
				found = true
				for _, verb := range []string{"get", "list", "watch"} {
					if !slices.Contains(p.Verbs, verb) {
						t.Errorf("%s: no %s on %s", row.Kind, verb, api.Type())
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no permission on %s", row.Kind, api.Type())
		}
	}
}

// TestResourceTable: each resource read through the typed client lists
// and watches its own objects, and streamOf watches every resource of the
// table and nothing else.
func TestResourceTable(t *testing.T) {
	r := &Reader{Client: fake.NewClientset(cluster()...)}
	ctx := context.Background()
	for _, row := range resourceTable {
		if row.typed == nil {
			continue
		}
		list, watch := row.typed(r, "shop")
		if _, _, _, err := list(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("%s: list: %v", row.Resource, err)
		}
		w, err := watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Errorf("%s: watch: %v", row.Resource, err)
			continue
		}
		w.Stop()
		if s, err := r.streamOf(row.Resource, "shop", metav1.ListOptions{}, nil).openCtx(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("%s: streamOf: %v", row.Resource, err)
		} else {
			s.Stop()
		}
	}
	if _, err := r.streamOf("secrets", "shop", metav1.ListOptions{}, nil).openCtx(ctx, metav1.ListOptions{}); err == nil {
		t.Error("streamOf watches secrets, which no row of the table names")
	}
}
