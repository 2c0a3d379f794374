package diagnose

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// revision is one revision of a workload's pod template.
type revision struct {
	name     string
	number   int64
	template *corev1.PodTemplateSpec
	// ready says the revision is known to run (or have run) ready pods.
	ready bool
}

// revisionsOf are how each kind of the kinds table with revisions lists
// them (the pod templates it rolled out, oldest first or in any order) and
// names the one rolling out; a kind without an entry reports no change.
// A kind whose controller has not observed its generation returns that
// change instead (notObserved).
var revisionsOf = map[chain.Kind]func(s *chain.Snapshot) (revs []revision, cur string, c *chain.Change){
	chain.KindDeployment: func(s *chain.Snapshot) ([]revision, string, *chain.Change) {
		if s.Deployment == nil {
			return nil, "", nil
		}
		var revs []revision
		for _, rs := range s.OwnedReplicaSets() {
			n, err := strconv.ParseInt(chain.Revision(rs), 10, 64)
			if err != nil {
				continue
			}
			// A ReplicaSet's status holds what runs now: available
			// replicas prove it ran ready; scaled to 0 it keeps no record.
			revs = append(revs, revision{name: rs.Name, number: n, template: &rs.Spec.Template,
				ready: rs.Status.AvailableReplicas > 0})
		}
		cur := ""
		if c := s.CurrentReplicaSet(); c != nil {
			cur = c.Name
		}
		if !slices.ContainsFunc(revs, func(r revision) bool { return r.name == cur }) {
			// No ReplicaSet holds the live template: a Deployment created
			// or edited while paused. The controller will give the
			// template the next revision number when it creates its
			// ReplicaSet.
			next := int64(1)
			for _, r := range revs {
				if r.number >= next {
					next = r.number + 1
				}
			}
			cur = "not created yet"
			revs = append(revs, revision{name: cur, number: next, template: &s.Deployment.Spec.Template})
		}
		return revs, cur, nil
	},
	chain.KindStatefulSet: func(s *chain.Snapshot) ([]revision, string, *chain.Change) {
		sts := s.StatefulSet
		if sts == nil {
			return nil, "", nil
		}
		if c := notObserved(sts.Generation, sts.Status.ObservedGeneration); c != nil {
			return nil, "", c
		}
		cur := sts.Status.UpdateRevision
		return controllerRevisions(s, sts.UID, &sts.Spec.Template, cur), cur, nil
	},
	chain.KindDaemonSet: func(s *chain.Snapshot) ([]revision, string, *chain.Change) {
		ds := s.DaemonSet
		if ds == nil {
			return nil, "", nil
		}
		if c := notObserved(ds.Generation, ds.Status.ObservedGeneration); c != nil {
			return nil, "", c
		}
		revs := controllerRevisions(s, ds.UID, &ds.Spec.Template, "")
		if len(revs) == 0 {
			return nil, "", nil
		}
		return revs, revs[len(revs)-1].name, nil
	},
}

// whatChanged compares the revision rolling out with the last one that ran
// healthy: the newest older revision known to run ready pods, else the
// newest older one (its health unknown). Nil for kinds without revisions.
func whatChanged(s *chain.Snapshot) *chain.Change {
	of, ok := revisionsOf[s.KindOf()]
	if !ok {
		return nil
	}
	revs, cur, notYet := of(s)
	if notYet != nil {
		return notYet
	}
	row, _ := chain.RowOf(s.KindOf())
	kind := row.Short
	sort.SliceStable(revs, func(i, j int) bool { return revs[i].number < revs[j].number })
	var to *revision
	for i := range revs {
		if revs[i].name == cur {
			to = &revs[i]
		}
	}
	if to == nil {
		return nil
	}
	c := &chain.Change{Kind: chain.ChangeTemplate, To: fmt.Sprint(to.number), ToName: to.name}
	var from *revision
	for i := range revs {
		r := &revs[i]
		if r.number >= to.number {
			continue
		}
		if from == nil || r.ready || !from.ready {
			from = r
		}
	}
	switch {
	case to.ready:
		// The revision rolling out already ran ready pods: what broke is
		// not its template.
		c.Kind = chain.ChangeReplicasOnly
		c.Note = "the pod template did not change since revision " + c.To + " ran ready"
		return c
	case from == nil:
		c.Kind = chain.ChangeFirstRevision
		c.Note = "first revision: nothing to compare"
		return c
	}
	c.From, c.FromName, c.HealthKnown = fmt.Sprint(from.number), from.name, from.ready
	if from.template == nil || to.template == nil {
		c.Kind = chain.ChangeNotRead
		c.Note = "the template of revision " + c.From + " is not in the snapshot (its ControllerRevision was read without data)"
		return c
	}
	c.Fields = templateDiff(from.template, to.template)
	if len(c.Fields) > 0 {
		c.Applied = appliedOf(s, row.Object(s))
	}
	if len(c.Fields) == 0 {
		c.Kind = chain.ChangeReplicasOnly
		c.Note = "the pod template did not change (only the replicas or metadata)"
		return c
	}
	if !from.ready {
		// A rollback to a revision that may never have run is no advice.
		c.Note = "revision " + c.From + " is not known to have run ready (scaled to 0 it keeps no record): no rollback suggested"
		return c
	}
	c.Rollback = fmt.Sprintf("kubectl rollout undo %s/%s -n %s --to-revision=%d", kind, s.Name, s.Namespace, from.number)
	return c
}

// notObserved is the change of a StatefulSet or DaemonSet whose controller
// has not yet observed its generation: its ControllerRevisions do not hold
// the live template yet, so no revision can be named as rolling out.
func notObserved(generation, observed int64) *chain.Change {
	if observed >= generation {
		return nil
	}
	return &chain.Change{Kind: chain.ChangeNotRead,
		Note: fmt.Sprintf("the controller has not observed generation %d yet (observedGeneration %d): no revision holds the live template", generation, observed)}
}

// controllerRevisions decodes the ControllerRevisions the owner controls:
// their data is the template patch {"spec":{"template":{...}}}. A revision
// is known ready when a ready pod carries its controller-revision-hash.
//
// The template of the revision rolling out (cur, or when cur is "" the
// newest) is the workload's own (live) one, once its controller observed
// its generation (notObserved). A revision read without data (a capture
// taken when the reader dropped it) has no template.
func controllerRevisions(s *chain.Snapshot, owner types.UID, live *corev1.PodTemplateSpec, cur string) []revision {
	readyHash := map[string]bool{}
	for i := range s.Pods {
		if isReady(&s.Pods[i]) {
			readyHash[s.Pods[i].Labels[appsv1.ControllerRevisionHashLabelKey]] = true
		}
	}
	var out []revision
	for i := range s.Revisions {
		cr := &s.Revisions[i]
		owned := false
		for _, ref := range cr.OwnerReferences {
			owned = owned || (ref.Controller != nil && *ref.Controller && ref.UID == owner)
		}
		if !owned {
			continue
		}
		var patch struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		var tmpl *corev1.PodTemplateSpec
		if len(cr.Data.Raw) > 0 && json.Unmarshal(cr.Data.Raw, &patch) == nil {
			tmpl = &patch.Spec.Template
		}
		// A StatefulSet's pods carry the revision's name, a DaemonSet's its
		// hash (the name's last part).
		hash := cr.Name[strings.LastIndex(cr.Name, "-")+1:]
		out = append(out, revision{name: cr.Name, number: cr.Revision, template: tmpl,
			ready: readyHash[cr.Name] || readyHash[hash]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].number < out[j].number })
	for i := range out {
		if out[i].name == cur || cur == "" && i == len(out)-1 {
			out[i].template = live
		}
	}
	return out
}

// appliedOf is who applied the workload's template, as it and the GitOps
// object read beside it (Snapshot.Applier) say.
func appliedOf(s *chain.Snapshot, obj metav1.Object) *chain.Applied {
	a := chain.AppliedOf(obj)
	if a == nil {
		return nil
	}
	if s.Applier != nil && a.Owner != nil && s.Applier.GetKind() == a.Owner.Kind && s.Applier.GetName() == a.Owner.Name {
		a.FromOwner(s.Applier)
	} else if s.ApplierNote != "" {
		a.Note = s.ApplierNote
	}
	return a
}
