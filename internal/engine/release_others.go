package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// releaseOthers adds the release's objects of every other kind, each
// judged as any kind is (its status as kstatus reads it), where discovery
// says the cluster serves it: its claims, custom resources, ConfigMaps,
// RBAC. What cannot be judged is listed with why: a Secret (never read), a
// kind the cluster does not serve.
func (e *Engine) releaseOthers(b *capture.Bundle, r *release) error {
	objs, unjudged, err := e.resolveOthers(b)
	if err != nil {
		return err
	}
	r.unjudged = unjudged
	r.apis = map[string]chain.APIResource{}
	for _, obj := range objs {
		ref := chain.ResourceRef(obj.api, obj.name)
		if row, ok := chain.RowOf(chain.Kind(obj.api.Kind)); ok && row.CRD && row.Group == obj.api.Group {
			ref = chain.Ref{Kind: row.Kind, Name: obj.name} // a CRD's kind of the kinds table (a Rollout): walked by its chain
		}
		r.apis[kube.APIKey(ref)] = obj.api
		if obj.namespace == "" {
			if !slices.Contains(r.cluster, ref) {
				r.cluster = append(r.cluster, ref)
			}
			continue
		}
		if _, ok := r.refs[obj.namespace]; !ok {
			r.namespaces = append(r.namespaces, obj.namespace)
		}
		if !slices.Contains(r.refs[obj.namespace], ref) {
			r.refs[obj.namespace] = append(r.refs[obj.namespace], ref)
		}
	}
	return nil
}

// otherObject is a release's object of another kind, resolved: where it
// is served, and its namespace ("" when cluster-scoped).
type otherObject struct {
	api             chain.APIResource
	namespace, name string
}

// resolveOthers resolves the bundle's objects of other kinds (and its
// claims) through discovery; unjudged says why each of the rest cannot be
// judged.
func (e *Engine) resolveOthers(b *capture.Bundle) (objs []otherObject, unjudged []string, err error) {
	others := slices.Clone(b.Others)
	for _, c := range b.Claims {
		others = append(others, capture.Other{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name})
	}
	if len(others) == 0 {
		return nil, nil, nil
	}
	mapper, err := e.NewMapper()
	if err != nil {
		return nil, nil, Translate(err)
	}
	for _, obj := range others {
		what := strings.ToLower(obj.Kind) + "/" + obj.Name
		gv, err := schema.ParseGroupVersion(obj.APIVersion)
		if err != nil {
			unjudged = append(unjudged, fmt.Sprintf("%s: apiVersion %q does not parse", what, obj.APIVersion))
			continue
		}
		if gv.Group == "" && obj.Kind == "Secret" {
			unjudged = append(unjudged, what+": not read (kubectl chain never reads Secrets)")
			continue
		}
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: obj.Kind}, gv.Version)
		if err != nil {
			why := fmt.Sprintf("discovery failed: %v", err)
			if meta.IsNoMatchError(err) {
				why = fmt.Sprintf("this cluster does not serve %s in %s (is its CRD installed?)", obj.Kind, obj.APIVersion)
			}
			unjudged = append(unjudged, what+": "+why)
			continue
		}
		api := apiOf(mapping)
		ns := ""
		if api.Namespaced {
			ns = cmp.Or(obj.Namespace, e.Namespace)
		}
		objs = append(objs, otherObject{api: api, namespace: ns, name: obj.Name})
	}
	return objs, unjudged, nil
}

// noteUnjudged lists what the release holds that was not judged, on
// standard error.
func (e *Engine) noteUnjudged() {
	if e.release == nil || len(e.release.unjudged) == 0 {
		return
	}
	fmt.Fprintf(e.notes, "not judged (%d; --unjudged fail fails the gate on them):\n", len(e.release.unjudged))
	for _, u := range e.release.unjudged {
		fmt.Fprintf(e.notes, "  %s\n", u)
	}
}

// gateUnjudged fails a gate that passed when --unjudged fail is given and
// some object could not be judged.
func (e *Engine) gateUnjudged() error {
	if e.release != nil && len(e.release.unjudged) > 0 && e.Unjudged == UnjudgedFail {
		return &ExitError{Code: ExitUnknown, Err: fmt.Errorf("%d object(s) of the release could not be judged, and --unjudged fail fails the gate on them", len(e.release.unjudged))}
	}
	return nil
}
