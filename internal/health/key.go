package health

import (
	"fmt"
	"strings"
)

// keyPrefix starts every per-kind argocd-cm key:
// resource.customizations.<type>.<group>_<kind>.
const keyPrefix = legacyKey + "."

// parseKey reads an argocd-cm data key the way Argo CD's settings manager
// does (appendResourceOverridesFromSplitKeys and convertToOverrideKey in
// util/settings/settings.go):
//
//	resource.customizations.health.cert-manager.io_Certificate → health, cert-manager.io, Certificate
//	resource.customizations.health.Pod                         → health, "", Pod (the core group)
//	resource.customizations.useOpenLibs.cert-manager.io_Certificate
//	resource.customizations.health.all                         → health, *, * (every grouped kind)
//
// ok is false for keys Argo CD skips (other settings, the single
// resource.customizations key). err is set for keys Argo CD rejects (a
// group/kind with more than one "_", an unknown type) and for two it
// accepts but can never match, which would fail silently there: an empty
// group ("_Pod"; the core group is written "Pod") or an empty kind.
// The types actions, ignoreDifferences, ignoreResourceUpdates and
// knownTypeFields are valid; the caller ignores them.
func parseKey(key string) (typ, group, kind string, ok bool, err error) {
	rest, found := strings.CutPrefix(key, keyPrefix)
	if !found {
		return "", "", "", false, nil
	}
	typ, gk, found := strings.Cut(rest, ".")
	if !found {
		return "", "", "", false, nil
	}
	switch typ {
	case "health", "useOpenLibs", "actions", "ignoreDifferences", "ignoreResourceUpdates", "knownTypeFields":
	default:
		return typ, "", "", true, fmt.Errorf("resource customization type %q not supported", typ)
	}
	if gk == "all" {
		return typ, "*", "*", true, nil
	}
	parts := strings.Split(gk, "_")
	switch {
	case len(parts) == 1 && gk != "":
		return typ, "", gk, true, nil
	case len(parts) == 2 && parts[0] == "":
		return typ, "", "", true, fmt.Errorf("empty group before %q: write a core kind without group and underscore, as resource.customizations.%s.%s", "_", typ, parts[1])
	case len(parts) == 2 && parts[1] == "":
		return typ, "", "", true, fmt.Errorf("empty kind after %q", parts[0]+"_")
	case len(parts) == 2:
		return typ, parts[0], parts[1], true, nil
	}
	return typ, "", "", true, fmt.Errorf("group kind should be in format resource.customizations.<type>.<group>_<kind> or resource.customizations.<type>.<kind>, got %q", gk)
}
