package decode

import (
	"fmt"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// schedTaint decodes the taint wordings that name the taint: v1.19-v1.34
// "node(s) had untolerated taint {%s: %s}" and the older
// "node(s) had taint {%s: %s}, that the pod didn't tolerate". Neither says
// the effect.
func schedTaint(text string) (schedFact, bool) {
	inner, ok := schedBetween(text, "node(s) had untolerated taint {", "}")
	if !ok {
		inner, ok = schedBetween(text, "node(s) had taint {", "}, that the pod didn't tolerate")
	}
	if !ok {
		return schedFact{}, false
	}
	key, value, ok := strings.Cut(inner, ":")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return schedFact{}, false
	}
	switch key {
	case "node.cloudprovider.kubernetes.io/uninitialized":
		return schedFact{cause: NodeUninitialized, what: "not initialized by the cloud controller manager {" + inner + "}",
			details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/network-unavailable",
		"node.kubernetes.io/out-of-service":
		return schedFact{cause: NodeNotReady, what: "node condition taint {" + inner + "}",
			next: schedTolerationStep(key, value), details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/memory-pressure", "node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure":
		// The catalogue's next step for each resource says what to free.
		return schedFact{cause: pressureTaints[key], what: "node pressure taint {" + inner + "}",
			details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	case "node.kubernetes.io/unschedulable":
		return schedFact{cause: NodeUnschedulable, what: "cordoned {" + inner + "}",
			next: schedTolerationStep(key, value), details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
	}
	return schedFact{cause: UntoleratedTaint,
		what:    "untolerated taint {" + inner + "}",
		next:    schedTolerationStep(key, value),
		details: []chain.Detail{{Key: "key", Value: key}, {Key: "value", Value: value}}}, true
}

// pressureTaints are the taints the node lifecycle controller sets from
// the pressure conditions (k8s.io/api core/v1 well_known_taints.go).
var pressureTaints = map[string]chain.CauseID{"node.kubernetes.io/memory-pressure": NodeMemoryPressure,
	"node.kubernetes.io/disk-pressure": NodeDiskPressure, "node.kubernetes.io/pid-pressure": NodePIDPressure}

// schedTolerationStep is the fix for one named taint. Taints under
// node.kubernetes.io/ are set by Kubernetes from node conditions (not-ready,
// unreachable, disk-pressure, ...): tolerating them hides a sick node.
func schedTolerationStep(key, value string) string {
	if strings.HasPrefix(key, "node.kubernetes.io/") || strings.HasPrefix(key, "node.cloudprovider.kubernetes.io/") {
		return fmt.Sprintf("the nodes carry the %s taint that Kubernetes sets from a node condition: fix the nodes (kubectl describe nodes: Conditions, Taints) rather than tolerating it", key)
	}
	toleration := fmt.Sprintf("{key: %q, operator: \"Exists\"}", key)
	if value != "" {
		toleration = fmt.Sprintf("{key: %q, operator: \"Equal\", value: %q}", key, value)
	}
	return fmt.Sprintf("add a toleration %s to spec.template.spec.tolerations, or remove the taint: kubectl taint nodes {NODE} %s-", toleration, key)
}

// schedPVCMissing decodes the VolumeBinding PreFilter's lister error
// ('persistentvolumeclaim "data" not found') and its wording for a generic
// ephemeral volume whose claim is not created yet. Both are PreFilter
// messages: they stand for every node and carry no count.
func schedPVCMissing(text string) (schedFact, bool) {
	// volumebinding/binder.go wraps the lister error: "error getting PVC %q: %v".
	if rest, ok := strings.CutPrefix(text, `error getting PVC "`); ok {
		if _, inner, ok := strings.Cut(rest, `": `); ok {
			if f, ok := schedPVCMissing(inner); ok {
				f.what = text
				return f, true
			}
		}
		return schedFact{}, false
	}
	if claim, rest, ok := strings.Cut(text, `" bound to non-existent persistentvolume "`); ok && strings.HasPrefix(claim, `persistentvolumeclaim "`) {
		// volumebinding/binder.go (1.26+): "persistentvolumeclaim %q bound
		// to non-existent persistentvolume %q".
		pv := strings.TrimSuffix(rest, `"`)
		return schedFact{cause: PVNotFound, what: text,
			next:    fmt.Sprintf("PersistentVolume %q, which claim %q is bound to, does not exist: recreate it, or delete and recreate the claim so it binds anew", pv, strings.TrimPrefix(claim, `persistentvolumeclaim "`)),
			details: []chain.Detail{{Key: "claim", Value: strings.TrimPrefix(claim, `persistentvolumeclaim "`)}, {Key: "volume", Value: pv}}}, true
	}
	if name, ok := schedBetween(text, `persistentvolume "`, `" not found`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVNotFound, what: text,
			next:    fmt.Sprintf("PersistentVolume %q, which a claim of the pod is bound to, does not exist: recreate it, or delete and recreate the claim so it binds anew", name),
			details: []chain.Detail{{Key: "volume", Value: name}}}, true
	}
	if name, ok := schedBetween(text, `persistentvolumeclaim "`, `" not found`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVCNotFound, what: text,
			next:    fmt.Sprintf("create PersistentVolumeClaim %q in the pod's namespace, or fix spec.template.spec.volumes[].persistentVolumeClaim.claimName", name),
			details: []chain.Detail{{Key: "claim", Value: name}}}, true
	}
	if name, ok := schedBetween(text, `waiting for ephemeral volume controller to create the persistentvolumeclaim "`, `"`); ok && !strings.Contains(name, `"`) {
		return schedFact{cause: PVCNotFound, what: text,
			next:    "the ephemeral volume controller (kube-controller-manager) creates this claim from spec.template.spec.volumes[].ephemeral; if it lasts, check kube-controller-manager",
			details: []chain.Detail{{Key: "claim", Value: name}}}, true
	}
	return schedFact{}, false
}

// schedGates decodes schedulinggates/scheduling_gates.go "waiting for
// scheduling gates: %v".
func schedGates(text string) (schedFact, bool) {
	gates, ok := schedBetween(text, "waiting for scheduling gates: [", "]")
	if !ok {
		return schedFact{}, false
	}
	return schedFact{cause: SchedulingGated, what: text,
		details: []chain.Detail{{Key: "gates", Value: gates}}}, true
}

// schedPreFilterAbsent decodes the nodes a PreFilter plugin left out
// (schedule_one.go "node(s) didn't satisfy plugin(s) %v", framework/runtime/
// framework.go "node(s) didn't satisfy plugin %v" and "... plugin(s) %v
// simultaneously", v1.37.2). When NodeAffinity alone left them out, they are
// the nodes the pod's own affinity does not ask for: every DaemonSet pod
// names its one node (matchFields metadata.name), so on a cluster of N
// nodes its FailedScheduling carries N-1 of them beside what its node
// lacks ("1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s)
// [NodeAffinity]", the lab's scheduler). Other plugins stay undecoded.
func schedPreFilterAbsent(text string) (schedFact, bool) {
	for _, form := range []struct{ prefix, suffix string }{
		{"node(s) didn't satisfy plugin(s) [", "] simultaneously"},
		{"node(s) didn't satisfy plugin(s) [", "]"},
		{"node(s) didn't satisfy plugin ", ""},
	} {
		plugins, ok := strings.CutPrefix(text, form.prefix)
		if !ok || !strings.HasSuffix(plugins, form.suffix) {
			continue
		}
		if plugins = strings.TrimSuffix(plugins, form.suffix); plugins == "NodeAffinity" {
			return schedFact{cause: NodeAffinityMismatch, what: "not among the nodes the pod's node affinity names (" + text + ")"}, true
		}
		return schedFact{}, false
	}
	return schedFact{}, false
}

// schedPluginError unwraps the framework's plugin errors (framework/runtime/
// framework.go "running PreFilter plugin %q: %w", "running %q filter plugin:
// %w") and decodes what the plugin said.
func schedPluginError(text string) (schedFact, bool) {
	var plugin, inner string
	if rest, ok := strings.CutPrefix(text, `running PreFilter plugin "`); ok {
		plugin, inner, ok = strings.Cut(rest, `": `)
		if !ok {
			return schedFact{}, false
		}
	} else if rest, ok := strings.CutPrefix(text, `running "`); ok {
		plugin, inner, ok = strings.Cut(rest, `" filter plugin: `)
		if !ok {
			return schedFact{}, false
		}
	} else {
		return schedFact{}, false
	}
	f, ok := schedExact[inner]
	for i := 0; !ok && i < len(schedPatterns); i++ {
		f, ok = schedPatterns[i](inner)
	}
	if !ok {
		return schedFact{}, false
	}
	f.details = append([]chain.Detail{{Key: "plugin", Value: plugin}}, f.details...)
	return f, true
}

// schedBetween returns what lies between prefix and suffix when text is
// exactly prefix + value + suffix.
func schedBetween(text, prefix, suffix string) (string, bool) {
	if len(text) < len(prefix)+len(suffix) || !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, suffix) {
		return "", false
	}
	return text[len(prefix) : len(text)-len(suffix)], true
}
