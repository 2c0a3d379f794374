package component

import (
	"runtime/debug"
	"strings"
	"sync/atomic"
	_ "unsafe" // go:linkname

	_ "k8s.io/component-base/version" // the variables below
)

// The version variables of k8s.io/component-base/version, which upstream's
// release builds set with -ldflags -X; without them every component reports
// v0.0.0-master. The lab sets them at start from the k8s.io/kubernetes
// version it is built with, as a release build would.
//
//go:linkname gitVersion k8s.io/component-base/version.gitVersion
var gitVersion string

//go:linkname gitMajor k8s.io/component-base/version.gitMajor
var gitMajor string

//go:linkname gitMinor k8s.io/component-base/version.gitMinor
var gitMinor string

//go:linkname gitTreeState k8s.io/component-base/version.gitTreeState
var gitTreeState string

// dynamicGitVersion is what version.Get reports; its init copied the
// placeholder from gitVersion.
//
//go:linkname dynamicGitVersion k8s.io/component-base/version.dynamicGitVersion
var dynamicGitVersion atomic.Value

// stampVersion sets the component version from the build's module list.
func stampVersion() {
	v := kubernetesVersion()
	if v == "" {
		return
	}
	gitVersion, gitTreeState = v, "clean"
	dynamicGitVersion.Store(v)
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) >= 2 {
		gitMajor, gitMinor = parts[0], parts[1]
	}
}

// kubernetesVersion is the version of k8s.io/kubernetes this binary links.
func kubernetesVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range info.Deps {
		if m.Path == "k8s.io/kubernetes" {
			return m.Version
		}
	}
	return ""
}
