// Copied from github.com/traefik/traefik pkg/config/dynamic/ext/ext.go (v3.7 branch): see go.mod.

package ext

// HTTP is a dynamic.HTTP extension.
type HTTP struct{}

// Router is a dynamic.Router extension.
type Router struct{}
