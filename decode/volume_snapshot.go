package decode

import (
	"fmt"
	"regexp"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// A claim whose spec.dataSource is a VolumeSnapshot is restored from it:
// the snapshot is what produces its data, and the CSI external-provisioner
// says so when it cannot (pkg/controller/controller.go of v6.3.0: "error
// getting handle for DataSource Type %s by Name %s: %v", around "error
// getting snapshot %s from api server: %v", "snapshot %s is not Ready" and
// "requested volume size %d is less than the size %d for the source
// snapshot %s"). The claim's ProvisioningFailed event is then the
// snapshot's cause, one link up.
const (
	ClaimSnapshotNotFound    chain.CauseID = "ClaimSnapshotNotFound"
	ClaimSnapshotNotReady    chain.CauseID = "ClaimSnapshotNotReady"
	ClaimSmallerThanSnapshot chain.CauseID = "ClaimSmallerThanSnapshot"
)

var snapshotCauses = []Cause{
	{ID: ClaimSnapshotNotFound, Link: chain.LinkClaims,
		Summary:  "the claim is to be restored from a VolumeSnapshot (spec.dataSource) that does not exist",
		NextStep: "kubectl get volumesnapshots -n {NAMESPACE}; fix the claim's dataSource name, or create the snapshot first",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ClaimSnapshotNotReady, Link: chain.LinkClaims,
		Summary:  "the VolumeSnapshot the claim is restored from is not readyToUse: the provisioner waits for it",
		NextStep: "kubectl describe volumesnapshot SNAPSHOT -n {NAMESPACE}: its status.error, and the snapshot controller's and CSI snapshotter's logs",
		Terminal: TerminalRule{Mode: AfterGrace}},
	{ID: ClaimSmallerThanSnapshot, Link: chain.LinkClaims,
		Summary:  "the claim asks for less storage than the VolumeSnapshot it is restored from holds (its restoreSize)",
		NextStep: "request at least the snapshot's RESTORESIZE (kubectl get volumesnapshot SNAPSHOT -n {NAMESPACE}); a claim's source cannot change, so delete and recreate it",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
}

var (
	snapshotHandleRE   = regexp.MustCompile(`error getting handle for DataSource Type VolumeSnapshot by Name ([^:]*): (.*)$`)
	snapshotNotFoundRE = regexp.MustCompile(`error getting snapshot \S* ?from api server: .*not found`)
	snapshotNotReadyRE = regexp.MustCompile(`snapshot \S+ is not Ready`)
	snapshotSizeRE     = regexp.MustCompile(`requested volume size (\d+) is less than the size (\d+) for the source snapshot (\S+)`)
)

// SnapshotSource decodes the provisioner's words about a claim's
// VolumeSnapshot data source.
func SnapshotSource(message string) (Decoded, bool) {
	m := snapshotHandleRE.FindStringSubmatch(message)
	if m == nil {
		return Decoded{}, false
	}
	name, why := m[1], m[2]
	details := []chain.Detail{{Key: "snapshot", Value: name}}
	switch {
	case snapshotNotFoundRE.MatchString(why):
		return Decoded{Cause: ClaimSnapshotNotFound, Summary: fmt.Sprintf("VolumeSnapshot %q, the claim's dataSource, does not exist", name), Details: details}, true
	case snapshotNotReadyRE.MatchString(why):
		return Decoded{Cause: ClaimSnapshotNotReady, Summary: fmt.Sprintf("VolumeSnapshot %q, the claim's dataSource, is not ready to use", name), Details: details}, true
	}
	if s := snapshotSizeRE.FindStringSubmatch(why); s != nil {
		return Decoded{Cause: ClaimSmallerThanSnapshot, Summary: fmt.Sprintf("the claim asks for %s bytes, less than the %s bytes of VolumeSnapshot %q", s[1], s[2], s[3]),
			Details: append(details, chain.Detail{Key: "requested", Value: s[1]}, chain.Detail{Key: "restoreSize", Value: s[2]})}, true
	}
	return Decoded{}, false
}
