package paste

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Controllers record a refused pod create as a FailedCreate event about
// themselves (the owner), quoting the API server's error: the ReplicaSet,
// Job and DaemonSet controllers as "Error creating: pods \"NAME\" is
// forbidden: ..." (pkg/controller/controller_utils.go CreatePods), the
// StatefulSet controller as "create Pod NAME in StatefulSet SET failed
// error: ..." (pkg/controller/statefulset/stateful_pod_control.go). The
// pod's name is the owner's generateName and five characters
// (names.SimpleNameGenerator), or the owner's with "-" when the API
// server refused it before naming it.
var (
	createdPodRe = regexp.MustCompile(`^(?:\(combined from similar events\): )?Error creating: pods "([a-z0-9][-a-z0-9.]*?)(?:-[a-z0-9]{5}|-)"`)
	setPodRe     = regexp.MustCompile(`^(?:\(combined from similar events\): )?create Pod ([a-z0-9][-a-z0-9.]*)-(\d+) in StatefulSet ([a-z0-9][-a-z0-9.]*) failed`)
)

// creatorKinds are the kinds whose controllers write "Error creating:
// pods ...", by the event's source.
var creatorKinds = map[string]string{
	"replicaset-controller": "ReplicaSet", "job-controller": "Job", "daemonset-controller": "DaemonSet",
}

// createdBy is the owner a FailedCreate row is about, by its source and
// message, when the row does not say (a describe's rows pasted without
// their describe).
func createdBy(r eventRow) (kind, name string, ok bool) {
	if r.reason != "FailedCreate" {
		return "", "", false
	}
	if m := setPodRe.FindStringSubmatch(r.message); m != nil && m[1] == m[3] {
		return "StatefulSet", m[3], true
	}
	if k := creatorKinds[r.source]; k != "" {
		if m := createdPodRe.FindStringSubmatch(r.message); m != nil {
			return k, m[1], true
		}
	}
	return "", "", false
}

// hashRe is a ReplicaSet's name as the Deployment controller makes it:
// DEPLOYMENT-HASH, the pod-template-hash in rand.SafeEncodeString's
// alphabet (no vowels, no 0, 1 or 3).
var hashRe = regexp.MustCompile(`^(.+)-([bcdfghjklmnpqrstvwxz2456789]{6,10})$`)

// creators rebuilds the owners a paste shows only by their FailedCreate
// events: a skeleton of each (its name, and that it wants a pod more
// than it has), so that the walk judges its pods link by those events as
// it judges a live one's. A ReplicaSet named DEPLOYMENT-HASH gets a
// Deployment skeleton too, selecting its pods by their pod-template-hash
// (the one label the name shows): a ReplicaSet is walked through its
// Deployment.
func (p *parser) creators() {
	seen := map[string]bool{}
	for _, e := range p.events {
		r := e.row
		if r.reason != "FailedCreate" || r.name == "" || seen[r.kind+"/"+r.namespace+"/"+r.name] {
			continue
		}
		seen[r.kind+"/"+r.namespace+"/"+r.name] = true
		switch r.kind {
		case "ReplicaSet":
			if p.replicaSet(r.namespace, r.name) == nil {
				p.replicaSetSkeleton(r.namespace, r.name)
			}
		case "StatefulSet":
			if !p.hasWorkload("StatefulSet", r.namespace, r.name) {
				p.statefulSetSkeleton(r)
			}
		case "Job":
			if !p.hasWorkload("Job", r.namespace, r.name) {
				j := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: skeletonMeta("Job", r.namespace, r.name)}
				p.jobs = append(p.jobs, j)
				p.note(fmt.Sprintf("job/%s is known only by its FailedCreate events: kubectl describe job %s shows it", r.name, r.name))
			}
		}
	}
}

func skeletonMeta(kind, namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, UID: UID(kind, namespace, name)}
}

// replicaSetSkeleton builds a ReplicaSet known by its FailedCreate
// events, and its Deployment when its name shows one.
func (p *parser) replicaSetSkeleton(namespace, name string) {
	have := int32(0)
	for _, pt := range p.pods {
		if podOf(pt.pod.Name, name) && (pt.pod.Namespace == namespace || pt.pod.Namespace == "") {
			have++
		}
	}
	want := have + 1
	rs := &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, ObjectMeta: skeletonMeta("ReplicaSet", namespace, name)}
	rs.Spec.Replicas, rs.Status.Replicas = &want, have
	m := hashRe.FindStringSubmatch(name)
	if m == nil {
		p.rss = append(p.rss, rs)
		p.note(fmt.Sprintf("replicaset/%s is known only by its FailedCreate events, and its name shows no Deployment: kubectl describe rs %s shows its owner", name, name))
		return
	}
	hash := map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: m[2]}
	rs.Labels, rs.Spec.Template.Labels = hash, hash
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: hash}
	p.rss = append(p.rss, rs)
	if p.hasWorkload("Deployment", namespace, m[1]) {
		return
	}
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: skeletonMeta("Deployment", namespace, m[1])}
	d.Spec.Replicas, d.Status.Replicas = &want, have
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: hash}
	d.Spec.Template.Labels = hash
	yes := true
	rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}
	p.deps = append(p.deps, d)
	p.note(fmt.Sprintf("replicaset/%s is known only by its FailedCreate events, and deployment/%s by its ReplicaSet's name: kubectl describe deployment %s shows them", name, d.Name, d.Name))
}

// podOf says a pod's name is one a ReplicaSet or Job gives its pods,
// OWNER-xxxxx.
func podOf(pod, owner string) bool {
	rest, ok := strings.CutPrefix(pod, owner+"-")
	return ok && len(rest) == 5
}

// statefulSetSkeleton builds a StatefulSet known by its FailedCreate
// events: it wants the ordinal it could not create, and those before it.
func (p *parser) statefulSetSkeleton(r eventRow) {
	want := int32(1)
	if m := setPodRe.FindStringSubmatch(r.message); m != nil {
		var n int32
		if _, err := fmt.Sscan(m[2], &n); err == nil {
			want = n + 1
		}
	}
	s := appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: skeletonMeta("StatefulSet", r.namespace, r.name)}
	s.Spec.Replicas = &want
	p.res.StatefulSets = append(p.res.StatefulSets, s)
	p.note(fmt.Sprintf("statefulset/%s is known only by its FailedCreate events: kubectl describe statefulset %s shows it", r.name, r.name))
}
