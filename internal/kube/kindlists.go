package kube

import (
	"context"
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// kindLists are one list per kind of the kinds table that a read needs
// whole in a namespace: the workloads whose templates a Service may
// select (servingKinds), the workloads an object may own (ownableKinds).
// The kinds come from the table's rows, so a new row is listed where it
// belongs without a line here.
type kindLists struct {
	kinds []chain.Kind
	lists map[chain.Kind]*listed[metav1.Object]
}

// servingKinds are the table's workload kinds whose chain goes on to the
// Services (chain.KindRow.Serves): the kinds whose pod templates a
// Service may be meant for. With builtIn, only those every cluster
// serves; without, only those a CRD serves.
func servingKinds(builtIn bool) []chain.Kind {
	var out []chain.Kind
	for _, row := range chain.KindTable() {
		if row.Class == chain.ClassWorkload && row.Serves() && row.CRD != builtIn {
			out = append(out, row.Kind)
		}
	}
	return out
}

// ownableKinds are the table's workload kinds every cluster serves: what
// an operator's object is looked for among. (A CRD's kind would cost a
// list, and a 404 where it is not installed, on every such read.)
func ownableKinds() []chain.Kind { return chain.KindsOf(chain.ClassWorkload, true) }

// startKindLists starts, on wg, a list of each kind in namespace ns.
func (r *Reader) startKindLists(ctx context.Context, wg *sync.WaitGroup, ns string, kinds []chain.Kind) *kindLists {
	l := &kindLists{kinds: kinds, lists: map[chain.Kind]*listed[metav1.Object]{}}
	for _, k := range kinds {
		out := &listed[metav1.Object]{}
		l.lists[k] = out
		wg.Go(func() { *out = r.listKind(ctx, k, ns, metav1.ListOptions{}) })
	}
	return l
}

// listKind lists the objects of a kind of the kinds table in namespace
// ns, as the row's type: a built-in kind through the typed client, a
// CRD's through the dynamic client (none, and no error, where the CRD is
// not installed).
func (r *Reader) listKind(ctx context.Context, k chain.Kind, ns string, opts metav1.ListOptions) listed[metav1.Object] {
	row, ok := chain.RowOf(k)
	if !ok {
		return listed[metav1.Object]{err: errors.New("kubectl chain has no row for " + string(k))}
	}
	if row.CRD {
		dc, err := r.dynamicOf()
		if err != nil {
			return listed[metav1.Object]{}
		}
		l, err := dc.Resource(gvrOf(row.API())).Namespace(ns).List(ctx, opts)
		switch {
		case err != nil && notServed(err):
			return listed[metav1.Object]{requests: 1}
		case err != nil:
			return listed[metav1.Object]{requests: 1, err: err}
		}
		out := listed[metav1.Object]{requests: 1, rv: l.GetResourceVersion()}
		for i := range l.Items {
			if obj, err := row.Decode(&l.Items[i]); err == nil {
				out.items = append(out.items, obj)
			}
		}
		return out
	}
	res, ok := resourceRowOf(k.Plural())
	if !ok || res.typed == nil {
		return listed[metav1.Object]{err: errors.New("kubectl chain has no typed list of " + k.Plural())}
	}
	list, _ := res.typed(r, ns)
	items, _, rv, err := list(ctx, opts)
	out := listed[metav1.Object]{requests: 1, rv: rv, err: err}
	for _, o := range items {
		if m, err := meta.Accessor(o); err == nil {
			out.items = append(out.items, m)
		}
	}
	return out
}

func (l *kindLists) requests() int {
	n := 0
	for _, k := range l.kinds {
		n += l.lists[k].requests
	}
	return n
}

// errs are the lists' errors, each settled by settle with the kind's
// resource.
func (l *kindLists) errs(settle func(chain.Resource, error) error) []error {
	var out []error
	for _, k := range l.kinds {
		out = append(out, settle(chain.Resource(k.Plural()), l.lists[k].err))
	}
	return out
}

// templates are the listed objects' pod templates, by kind then name.
func (l *kindLists) templates() []chain.Template {
	var out []chain.Template
	for _, k := range l.kinds {
		for _, obj := range l.lists[k].items {
			if t, ok := chain.TemplateOf(k, obj); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// ownedBy are the listed objects whose ownerReferences name uid, by kind
// then name.
func (l *kindLists) ownedBy(uid types.UID) []chain.Ref {
	var out []chain.Ref
	for _, k := range l.kinds {
		for _, obj := range l.lists[k].items {
			for _, ref := range obj.GetOwnerReferences() {
				if ref.UID == uid {
					out = append(out, chain.Ref{Kind: k, Name: obj.GetName()})
					break
				}
			}
		}
	}
	return out
}
