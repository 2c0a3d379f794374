// Package health runs Argo CD's community health checks: the Lua scripts
// Argo CD keeps for some 240 custom kinds (cert-manager's Certificate,
// Crossplane's managed resources, Flux's Kustomization, ...) and the checks
// its users add in their argocd-cm ConfigMap. A custom resource has no
// health of its own in Kubernetes; these scripts are the most widely shared
// reading of what "healthy" means for each kind, so kubectl-chain borrows
// them rather than inventing its own.
//
// The scripts run in gopher-lua, the VM Argo CD uses, with the same global
// `obj`, the same conversion of the object into Lua tables, the same lookup
// (exact group/kind first, then wildcard folders such as _.crossplane.io)
// and the same reading of the returned table. The sandbox is stricter than
// Argo CD's: no io, no file loading, no os functions but the clock.
package health

import (
	"errors"
	"runtime/debug"
)

// Status is a health verdict. The values are Argo CD's HealthStatusCode
// values, so a verdict reads the same in kubectl-chain as in Argo CD's UI.
type Status string

// The statuses a check may return. Any other string is rejected as Argo CD
// rejects it (see ErrInvalidStatus).
const (
	// Healthy: the resource is 100% healthy.
	Healthy Status = "Healthy"
	// Progressing: not healthy yet, but still has a chance to become so.
	Progressing Status = "Progressing"
	// Degraded: the resource's status reports a failure, or it could not
	// become healthy in time.
	Degraded Status = "Degraded"
	// Suspended: paused or suspended, waiting for an outside event.
	Suspended Status = "Suspended"
	// Missing: the resource is not in the cluster.
	Missing Status = "Missing"
	// Unknown: the check could not tell.
	Unknown Status = "Unknown"
)

// Valid reports whether s is one of the six statuses Argo CD accepts from a
// Lua check.
func (s Status) Valid() bool {
	switch s {
	case Healthy, Progressing, Degraded, Suspended, Missing, Unknown:
		return true
	}
	return false
}

// Result is one check's verdict on one object, with where the check came
// from so that a reader can open the script that decided.
type Result struct {
	// Status is the verdict; empty only together with ErrNoStatus.
	Status Status
	// Message is the script's explanation, often quoted from the object's
	// own status conditions.
	Message string
	// Script names the check that ran: "argo-cd v3.5.8
	// cert-manager.io/Certificate/health.lua" for a built-in one, the user's
	// file and ConfigMap key for theirs.
	Script string
}

var (
	// ErrInvalidStatus is wrapped by Check's error when a script returns a
	// status outside the six valid ones. Argo CD shows such a resource as
	// Unknown with the message "Lua returned an invalid health status";
	// Check returns that same Result alongside the error.
	ErrInvalidStatus = errors.New("lua returned an invalid health status")
	// ErrNoStatus is wrapped by Check's error when a script returns nil, an
	// empty or array-like table, or fields of the wrong type. Argo CD then
	// records an empty health (no verdict, no error); Check returns that
	// empty Result alongside the error, so a caller can tell "no verdict"
	// from a broken script.
	ErrNoStatus = errors.New("lua returned no health status")
)

// catalogueModule is the Go module that ships Argo CD's checks.
const catalogueModule = "github.com/argoproj/argo-cd/v3"

// pinnedVersion is the catalogue version go.mod requires. Version falls back
// to it when the binary carries no module information (as in some tests).
const pinnedVersion = "v3.5.8"

// Version returns the version of Argo CD whose checks are built in, as the
// build recorded it, so that reports can say which catalogue judged.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return pinnedVersion
	}
	for _, dep := range info.Deps {
		if dep.Path != catalogueModule {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		if dep.Version != "" {
			return dep.Version
		}
	}
	return pinnedVersion
}
