package cli

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

// Values of --unjudged.
const (
	unjudgedNote = "note"
	unjudgedFail = "fail"
)

// releaseOthers adds the release's objects of every other kind, each
// judged as any kind is (its status as kstatus reads it), where discovery
// says the cluster serves it: its claims, custom resources, ConfigMaps,
// RBAC. What cannot be judged is listed with why: a Secret (never read), a
// kind the cluster does not serve.
func (o *Options) releaseOthers(b *capture.Bundle, r *release) error {
	others := slices.Clone(b.Others)
	for _, c := range b.Claims {
		others = append(others, capture.Other{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name})
	}
	if len(others) == 0 {
		return nil
	}
	mapper, err := o.NewMapper()
	if err != nil {
		return translate(err)
	}
	r.apis = map[string]chain.APIResource{}
	for _, obj := range others {
		gv, err := schema.ParseGroupVersion(obj.APIVersion)
		if err != nil {
			r.unjudged = append(r.unjudged, fmt.Sprintf("%s %s: apiVersion %q does not parse", obj.Kind, obj.Name, obj.APIVersion))
			continue
		}
		what := strings.ToLower(obj.Kind) + "/" + obj.Name
		if gv.Group == "" && obj.Kind == "Secret" {
			r.unjudged = append(r.unjudged, what+": not read (kubectl chain never reads Secrets)")
			continue
		}
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: obj.Kind}, gv.Version)
		if err != nil {
			why := fmt.Sprintf("discovery failed: %v", err)
			if meta.IsNoMatchError(err) {
				why = fmt.Sprintf("this cluster does not serve %s in %s (is its CRD installed?)", obj.Kind, obj.APIVersion)
			}
			r.unjudged = append(r.unjudged, what+": "+why)
			continue
		}
		api := chain.APIResource{Group: gv.Group, Version: gv.Version, Resource: mapping.Resource.Resource, Kind: obj.Kind,
			Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}
		ref := chain.ResourceRef(api, obj.Name)
		r.apis[kube.APIKey(ref)] = api
		ns := ""
		if api.Namespaced {
			ns = cmp.Or(obj.Namespace, o.namespace)
		}
		if ns == "" {
			if !slices.Contains(r.cluster, ref) {
				r.cluster = append(r.cluster, ref)
			}
			continue
		}
		if _, ok := r.refs[ns]; !ok {
			r.namespaces = append(r.namespaces, ns)
		}
		if !slices.Contains(r.refs[ns], ref) {
			r.refs[ns] = append(r.refs[ns], ref)
		}
	}
	return nil
}

// noteUnjudged lists what the release holds that was not judged, on
// standard error.
func (o *Options) noteUnjudged() {
	if o.release == nil || len(o.release.unjudged) == 0 {
		return
	}
	fmt.Fprintf(o.ErrOut, "not judged (%d; --unjudged fail fails the gate on them):\n", len(o.release.unjudged))
	for _, u := range o.release.unjudged {
		fmt.Fprintf(o.ErrOut, "  %s\n", u)
	}
}

// gateUnjudged fails a gate that passed when --unjudged fail is given and
// some object could not be judged.
func (o *Options) gateUnjudged() error {
	if o.release != nil && len(o.release.unjudged) > 0 && o.Unjudged == unjudgedFail {
		return &ExitError{Code: ExitUnknown, Err: fmt.Errorf("%d object(s) of the release could not be judged, and --unjudged fail fails the gate on them", len(o.release.unjudged))}
	}
	return nil
}
