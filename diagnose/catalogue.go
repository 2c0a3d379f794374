package diagnose

import (
	"sort"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// catalogue is every cause, in chain order: the walk's own causes and each
// decoder's, as declared beside the code that finds them.
var catalogue = buildCatalogue(
	walkCauses, controllerCauses, schedulerCauses,
	imageCauses, sandboxCauses, configCauses, mountCauses, startCauses,
	crashCauses, evictCauses, probeCauses,
)

func buildCatalogue(groups ...[]Cause) []Cause {
	var all []Cause
	for _, g := range groups {
		all = append(all, g...)
	}
	rank := map[chain.LinkID]int{}
	for i, l := range chain.Links {
		rank[l] = i
	}
	rank[""] = len(chain.Links)
	// Stable by link keeps each group's declared order within a link.
	sort.SliceStable(all, func(i, j int) bool { return rank[all[i].Link] < rank[all[j].Link] })
	return all
}

// Catalogue returns every cause kubectl-chain can name, in chain order.
func Catalogue() []Cause {
	return append([]Cause(nil), catalogue...)
}

// Lookup returns the catalogue entry of a cause ID.
func Lookup(id chain.CauseID) (Cause, bool) {
	for _, c := range catalogue {
		if c.ID == id {
			return c, true
		}
	}
	return Cause{}, false
}
