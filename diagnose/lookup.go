package diagnose

// The walk's look-ups in decode's catalogue: each finding's cause is one of
// its entries.

import (
	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// mustCause is the catalogue entry of a cause the walk names itself.
func mustCause(id chain.CauseID) decode.Cause {
	c, _ := decode.Lookup(id)
	return c
}

// isGeneric says a cause is its family's catch-all.
func isGeneric(id chain.CauseID) bool {
	c, _ := decode.Lookup(id)
	return c.Generic
}

// family is the decoder subject of a cause ("" for an unknown ID).
func family(id chain.CauseID) string {
	c, _ := decode.Lookup(id)
	return c.Family
}
