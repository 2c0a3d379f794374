package decode

import (
	"sort"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// catalogue is every cause, in chain order: each decoder's, declared
// beside the code that finds them, and the walk's own (walk_causes.go,
// kind_causes.go, resource_causes.go, traffic_causes.go ...), which are
// data here and found by package diagnose.
var catalogue = buildCatalogue(
	causeGroup{"walk", walkCauses}, causeGroup{"workload", kindCauses}, causeGroup{"validation", validationCauses},
	causeGroup{"controller", controllerCauses},
	causeGroup{"scheduler", schedulerCauses},
	causeGroup{"autoscaler", autoscalerCauses},
	causeGroup{"image", imageCauses}, causeGroup{"image", pullSecretCauses}, causeGroup{"sandbox", sandboxCauses},
	causeGroup{"config", configCauses}, causeGroup{"volume", mountCauses},
	causeGroup{"start", startCauses}, causeGroup{"crash", crashCauses},
	causeGroup{"security", securityCauses}, causeGroup{"runtime", runtimeSetupCauses},
	causeGroup{"resize", resizeCauses}, causeGroup{"sidecar", sidecarCauses},
	causeGroup{"eviction", evictCauses}, causeGroup{"probe", probeCauses},
	causeGroup{"hook", hookCauses}, causeGroup{"serving", servingCauses},
	causeGroup{"traffic", trafficCauses}, causeGroup{"gateway", gatewayCauses},
	causeGroup{"resource", resourceCauses}, causeGroup{"producer", producerCauses}, causeGroup{"producer", certManagerCauses},
	causeGroup{"rollout", rolloutCauses}, causeGroup{"rollout", analysisCauses}, causeGroup{"autoscaling", autoscalingCauses},
	causeGroup{"snapshot", snapshotCauses}, causeGroup{"workload", claimCauses}, causeGroup{"workload", workloadEventCauses},
	causeGroup{"scheduler", claimSchedCauses}, causeGroup{"workload", daemonTaintCauses},
)

// causeGroup is one decoder subject's causes, declared beside its code.
type causeGroup struct {
	family string
	causes []Cause
}

func buildCatalogue(groups ...causeGroup) []Cause {
	var all []Cause
	for _, g := range groups {
		for _, c := range g.causes {
			c.Family = g.family
			c.Step, c.NextStep = c.NextStep, Render(c.NextStep, nil)
			all = append(all, c)
		}
	}
	rank := map[chain.LinkID]int{}
	for i, l := range chain.AllLinks {
		rank[l] = i
	}
	rank[""] = len(chain.AllLinks)
	// Stable by link keeps each group's declared order within a link.
	sort.SliceStable(all, func(i, j int) bool { return rank[all[i].Link] < rank[all[j].Link] })
	return all
}

// Catalogue returns every cause kubectl-chain can name, in chain order.
func Catalogue() []Cause {
	return append([]Cause(nil), catalogue...)
}

// byID indexes the catalogue: the walk looks causes up for every finding.
var byID = func() map[chain.CauseID]int {
	m := make(map[chain.CauseID]int, len(catalogue))
	for i, c := range catalogue {
		m[c.ID] = i
	}
	return m
}()

// Lookup returns the catalogue entry of a cause ID.
func Lookup(id chain.CauseID) (Cause, bool) {
	i, ok := byID[id]
	if !ok {
		return Cause{}, false
	}
	return catalogue[i], true
}

// mustCause is the catalogue entry of a cause the decoders name themselves.
func mustCause(id chain.CauseID) Cause {
	c, _ := Lookup(id)
	return c
}

// isGeneric says a cause is its family's catch-all.
func isGeneric(id chain.CauseID) bool {
	c, _ := Lookup(id)
	return c.Generic
}

// family is the decoder subject of a cause ("" for an unknown ID).
func family(id chain.CauseID) string {
	c, _ := Lookup(id)
	return c.Family
}
