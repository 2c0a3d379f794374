// Package catalog names the images of the lab's registry: the one list both
// of the lab's engines follow. The registry (lab/registry) builds
// and serves exactly these; the simulated kubelet (lab/kubelet)
// takes a reference on Host as present only if it is one of them. It imports
// nothing, so the kubelet can use it without the registry's dependencies.
package catalog

// Host is the registry's name in image references. Real nodes reach it
// through their runtime's registry host configuration, never through DNS.
const Host = "registry.lab.internal"

// Names of the catalogue, as REPOSITORY:TAG on Host.
const (
	Web       = "web:v1"            // the scenarios' healthy image
	WebV2     = "web:v2"            // a second revision, for rollouts
	Pause     = "pause:lab"         // the pod sandbox image
	Private   = "private/web:v1"    // needs the lab's credentials
	OtherArch = "web:arm64-only"    // linux/arm64 only
	NoEntry   = "web:no-entrypoint" // its entrypoint is not in the image
)

// Names is every name of the catalogue.
func Names() []string { return []string{Web, WebV2, Pause, Private, OtherArch, NoEntry} }

// Has reports whether name (REPOSITORY:TAG) is in the catalogue.
func Has(name string) bool {
	for _, n := range Names() {
		if n == name {
			return true
		}
	}
	return false
}
