package diagnose

import (
	"encoding/json"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// templateDiff lists the pod template fields that differ between two
// revisions: per container its image, command, args, each env variable
// (value or source), envFrom, resources, probes and security context; per
// pod its volumes (and their sources), service account, node selection,
// tolerations and security context. Sorted by field path.
func templateDiff(a, b *corev1.PodTemplateSpec) []chain.FieldChange {
	fa, fb := templateFields(a), templateFields(b)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var out []chain.FieldChange
	for k := range keys {
		if fa[k] != fb[k] {
			out = append(out, chain.FieldChange{Field: k, From: fa[k], To: fb[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// templateFields flattens the compared fields to path -> compact JSON;
// absent and empty fields are left out.
func templateFields(t *corev1.PodTemplateSpec) map[string]string {
	m := map[string]string{}
	put := func(k string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		switch s := string(b); s {
		case "null", "{}", "[]", `""`:
		default:
			m[k] = s
		}
	}
	sp := &t.Spec
	for _, group := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", sp.InitContainers}, {"containers", sp.Containers}} {
		for _, c := range group.cs {
			p := group.name + "[" + c.Name + "]."
			put(p+"image", c.Image)
			put(p+"command", c.Command)
			put(p+"args", c.Args)
			for _, e := range c.Env {
				if e.ValueFrom != nil {
					put(p+"env["+e.Name+"]", e.ValueFrom)
				} else {
					put(p+"env["+e.Name+"]", e.Value)
					if e.Value == "" {
						m[p+"env["+e.Name+"]"] = `""`
					}
				}
			}
			put(p+"envFrom", c.EnvFrom)
			put(p+"resources", c.Resources)
			put(p+"livenessProbe", c.LivenessProbe)
			put(p+"readinessProbe", c.ReadinessProbe)
			put(p+"startupProbe", c.StartupProbe)
			put(p+"securityContext", c.SecurityContext)
		}
	}
	for _, v := range sp.Volumes {
		put("volumes["+v.Name+"]", v.VolumeSource)
	}
	put("serviceAccountName", sp.ServiceAccountName)
	put("nodeSelector", sp.NodeSelector)
	put("affinity", sp.Affinity)
	put("tolerations", sp.Tolerations)
	put("securityContext", sp.SecurityContext)
	return m
}
