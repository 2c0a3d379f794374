package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// resolveResources resolves each type kubectl chain does not know itself
// through discovery, as kubectl resolves it (short names, singulars,
// plurals, TYPE.GROUP and TYPE.VERSION.GROUP), with kubectl's on-disk
// cache of discovery. A type that turns out to be a kind kubectl chain
// walks itself is walked as that kind.
func (e *Engine) resolveResources(reader *kube.Reader) error {
	var mapper meta.RESTMapper
	for i := range e.targets {
		t := &e.targets[i]
		if t.Kind != kindResource || t.API != nil {
			continue
		}
		if mapper == nil {
			m, err := e.NewMapper()
			if err != nil {
				return Translate(err)
			}
			mapper = m
		}
		api, err := resolveType(mapper, t.Type)
		if err != nil {
			return err
		}
		if own := ownKind(api); own != "" {
			t.Kind = own
			continue
		}
		t.API = &api
		if reader.APIs == nil {
			reader.APIs = map[string]chain.APIResource{}
		}
		reader.APIs[kube.APIKey(chain.ResourceRef(api, t.Name))] = api
	}
	return nil
}

// resolveType maps a type as typed to where it is served.
func resolveType(mapper meta.RESTMapper, typ string) (chain.APIResource, error) {
	gvr, gr := schema.ParseResourceArg(strings.ToLower(typ))
	var (
		gvk schema.GroupVersionKind
		err error
	)
	if gvr != nil {
		gvk, err = mapper.KindFor(*gvr)
	}
	if gvk.Empty() {
		gvk, err = mapper.KindFor(gr.WithVersion(""))
	}
	if err != nil || gvk.Empty() {
		if meta.IsNoMatchError(err) || err == nil {
			return chain.APIResource{}, UsageErrorf("unknown resource type %q: this cluster serves no such resource (kubectl api-resources lists what it serves); kubectl chain walks deploy/NAME (or NAME), sts/NAME, ds/NAME, job/NAME, cj/NAME, svc/NAME, ing/NAME and the Gateway API's kinds itself, and any other kind the cluster serves as KIND/NAME", typ)
		}
		return chain.APIResource{}, Translate(fmt.Errorf("resolving resource type %q through discovery: %w", typ, err))
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return chain.APIResource{}, Translate(fmt.Errorf("resolving resource type %q through discovery: %w", typ, err))
	}
	return apiOf(mapping), nil
}

// apiOf is where discovery's mapping says a kind is served.
func apiOf(mapping *meta.RESTMapping) chain.APIResource {
	return chain.APIResource{Group: mapping.Resource.Group, Version: mapping.Resource.Version, Resource: mapping.Resource.Resource,
		Kind: mapping.GroupVersionKind.Kind, Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}
}

// ownKind is the target kind of a resource kubectl chain walks itself
// (a Deployment spelled "deployments.v1.apps", or by a short name a CRD
// adds), "" for any other.
func ownKind(api chain.APIResource) string {
	kind := KindOf(api.Kind)
	if kind != "" && kindGroup(kind) == api.Group {
		return kind
	}
	return ""
}

// kindGroup is the API group of a kind kubectl chain walks itself.
func kindGroup(kind string) string {
	if kind == kindReplicaSet {
		return replicaSet.Group
	}
	for _, r := range chain.KindTable() {
		if r.Resource() == kind {
			return r.Group
		}
	}
	return ""
}
