package paste

import (
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// describeDeployment rebuilds a Deployment from kubectl describe
// deployment, and its ReplicaSets from the OldReplicaSets and
// NewReplicaSet lines.
func (p *parser) describeDeployment(b block) {
	ns := b.value("Namespace")
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: b.value("Name"), Namespace: ns},
	}
	d.UID = UID("Deployment", ns, d.Name)
	d.CreationTimestamp = p.absolute(b.value("CreationTimestamp"))
	if f, ok := b.get("Labels"); ok {
		d.Labels = labelsOf(f)
	}
	if f, ok := b.get("Annotations"); ok {
		d.Annotations = annotationsOf(f)
	}
	d.Spec.Selector = selectorOf(b.value("Selector"))
	readReplicas(b.value("Replicas"), d)
	// Describe prints no ready count; an available pod is a ready one, so
	// available is the least that are ready.
	d.Status.ReadyReplicas = d.Status.AvailableReplicas
	d.Spec.Strategy.Type = appsv1.DeploymentStrategyType(b.value("StrategyType"))
	if n, err := strconv.Atoi(b.value("MinReadySeconds")); err == nil {
		d.Spec.MinReadySeconds = int32(n)
	}
	if m := rollingRe.FindStringSubmatch(b.value("RollingUpdateStrategy")); m != nil {
		u, s := intstr.Parse(m[1]), intstr.Parse(m[2])
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: &u, MaxSurge: &s}
	}
	if f, ok := b.get("Pod Template"); ok {
		d.Spec.Template = p.templateOf(f)
	}
	if f, ok := b.get("Conditions"); ok {
		for _, c := range conditionRows(f) {
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(c[0]), Status: corev1.ConditionStatus(c[1]), Reason: c[2]})
			// Describe does not print spec.paused; the Deployment
			// controller says it in Progressing's reason
			// (pkg/controller/deployment/util PausedDeployReason).
			if c[0] == string(appsv1.DeploymentProgressing) && c[2] == "DeploymentPaused" {
				d.Spec.Paused = true
			}
		}
	}
	// Describe prints no generation: none is said to be unobserved
	// (both stay 0).
	p.deps = append(p.deps, d)
	p.res.Forms = append(p.res.Forms, "kubectl describe deployment "+key(ns, d.Name))
	for _, line := range []struct {
		key     string
		current bool
	}{{"OldReplicaSets", false}, {"NewReplicaSet", true}} {
		for _, m := range rsLineRe.FindAllStringSubmatch(b.value(line.key), -1) {
			p.replicaSetOfDeployment(d, m[1], m[2], m[3], line.current)
		}
	}
	p.blockEvents(b, "Deployment", ns, d.Name)
	p.cutAt(b, "deployment "+key(ns, d.Name))
}

var (
	// rollingRe is "25% max unavailable, 25% max surge".
	rollingRe = regexp.MustCompile(`^(\S+) max unavailable, (\S+) max surge$`)
	// rsLineRe is one ReplicaSet of the OldReplicaSets and NewReplicaSet
	// lines: "web-6d4b9 (3/3 replicas created)".
	rsLineRe = regexp.MustCompile(`([a-z0-9][-a-z0-9.]*) \((\d+)/(\d+) replicas created\)`)
	// replicasRe are the counts of a Deployment's Replicas line.
	replicasRe = regexp.MustCompile(`(\d+) (desired|updated|total|available|unavailable)`)
)

// readReplicas reads "3 desired | 3 updated | 3 total | 0 available | 3
// unavailable".
func readReplicas(v string, d *appsv1.Deployment) {
	for _, m := range replicasRe.FindAllStringSubmatch(v, -1) {
		n, _ := strconv.Atoi(m[1])
		n32 := int32(n)
		switch m[2] {
		case "desired":
			d.Spec.Replicas = &n32
		case "updated":
			d.Status.UpdatedReplicas = n32
		case "total":
			d.Status.Replicas = n32
		case "available":
			d.Status.AvailableReplicas = n32
		case "unavailable":
			d.Status.UnavailableReplicas = n32
		}
	}
}

// replicaSetOfDeployment builds a ReplicaSet from a Deployment's line
// about it: its name and counts, and, for the new one, the Deployment's
// template (that is what makes it new). Its pod-template-hash is the end
// of its name (the Deployment controller names it DEPLOYMENT-HASH).
func (p *parser) replicaSetOfDeployment(d *appsv1.Deployment, name, created, desired string, current bool) {
	if existing := p.replicaSet(d.Namespace, name); existing != nil {
		return // its own describe says more
	}
	rs := &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.Namespace, UID: UID("ReplicaSet", d.Namespace, name)},
	}
	yes := true
	rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}
	c, _ := strconv.Atoi(created)
	w, _ := strconv.Atoi(desired)
	c32, w32 := int32(c), int32(w)
	rs.Spec.Replicas, rs.Status.Replicas = &w32, c32
	hash, ok := strings.CutPrefix(name, d.Name+"-")
	if d.Spec.Selector != nil {
		rs.Spec.Selector = d.Spec.Selector.DeepCopy()
		if ok {
			metav1.AddLabelToSelector(rs.Spec.Selector, appsv1.DefaultDeploymentUniqueLabelKey, hash)
		}
	}
	rs.Labels = map[string]string{}
	for k, v := range d.Spec.Template.Labels {
		rs.Labels[k] = v
	}
	if ok {
		rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	}
	if current {
		rs.Spec.Template = *d.Spec.Template.DeepCopy()
		if ok {
			if rs.Spec.Template.Labels == nil {
				rs.Spec.Template.Labels = map[string]string{}
			}
			rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		}
		if rev := d.Annotations["deployment.kubernetes.io/revision"]; rev != "" {
			rs.Annotations = map[string]string{"deployment.kubernetes.io/revision": rev}
		}
	}
	p.rss = append(p.rss, rs)
}

func (p *parser) replicaSet(namespace, name string) *appsv1.ReplicaSet {
	for _, rs := range p.rss {
		if rs.Name == name && rs.Namespace == namespace {
			return rs
		}
	}
	return nil
}

// describeReplicaSet rebuilds a ReplicaSet from kubectl describe
// replicaset.
func (p *parser) describeReplicaSet(b block) {
	ns := b.value("Namespace")
	name := b.value("Name")
	rs := p.replicaSet(ns, name)
	if rs == nil {
		rs = &appsv1.ReplicaSet{}
		p.rss = append(p.rss, rs)
	}
	*rs = appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: UID("ReplicaSet", ns, name)},
	}
	rs.OwnerReferences = ownerOf(b, ns)
	if f, ok := b.get("Labels"); ok {
		rs.Labels = labelsOf(f)
	}
	if f, ok := b.get("Annotations"); ok {
		rs.Annotations = annotationsOf(f)
	}
	rs.Spec.Selector = selectorOf(b.value("Selector"))
	if m := rsReplicasRe.FindStringSubmatch(b.value("Replicas")); m != nil {
		c, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		c32, w32 := int32(c), int32(w)
		rs.Status.Replicas, rs.Spec.Replicas = c32, &w32
	}
	if m := podsStatusRe.FindStringSubmatch(b.value("Pods Status")); m != nil {
		running, _ := strconv.Atoi(m[1])
		rs.Status.ReadyReplicas = int32(running)
		rs.Status.AvailableReplicas = int32(running)
	}
	if f, ok := b.get("Pod Template"); ok {
		rs.Spec.Template = p.templateOf(f)
	}
	if f, ok := b.get("Conditions"); ok {
		for _, c := range conditionRows(f) {
			rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetConditionType(c[0]), Status: corev1.ConditionStatus(c[1]), Reason: c[2]})
		}
	}
	p.res.Forms = append(p.res.Forms, "kubectl describe replicaset "+key(ns, name))
	p.blockEvents(b, "ReplicaSet", ns, name)
	p.cutAt(b, "replicaset "+key(ns, name))
}

var (
	rsReplicasRe = regexp.MustCompile(`^(\d+) current / (\d+) desired`)
	podsStatusRe = regexp.MustCompile(`^(\d+) Running / (\d+) Waiting / (\d+) Succeeded / (\d+) Failed`)
)

// templateOf reads a Pod Template section.
func (p *parser) templateOf(f field) corev1.PodTemplateSpec {
	var t corev1.PodTemplateSpec
	for _, k := range subFields(f.body) {
		switch k.key {
		case "Labels":
			t.Labels = labelsOf(k)
		case "Annotations":
			t.Annotations = annotationsOf(k)
		case "Service Account":
			t.Spec.ServiceAccountName = k.val
		case "Init Containers":
			t.Spec.InitContainers, _ = p.containersOf(k)
		case "Containers":
			t.Spec.Containers, _ = p.containersOf(k)
		case "Volumes":
			t.Spec.Volumes = volumesOf(k)
		case "Node-Selectors":
			t.Spec.NodeSelector = labelsOf(k)
		case "Tolerations":
			t.Spec.Tolerations = tolerationsOf(k)
		case "Priority Class Name":
			t.Spec.PriorityClassName = k.val
		}
	}
	return t
}

// conditionRows reads a Conditions table of Type, Status and Reason (a
// Deployment's, a ReplicaSet's; describe prints no message).
func conditionRows(f field) [][3]string {
	var out [][3]string
	for _, l := range f.body {
		c := strings.Fields(l.text)
		if len(c) < 2 || c[0] == "Type" || strings.Trim(l.text, "- ") == "" {
			continue
		}
		if c[1] != "True" && c[1] != "False" && c[1] != "Unknown" {
			continue
		}
		row := [3]string{c[0], c[1]}
		if len(c) > 2 {
			row[2] = c[2]
		}
		out = append(out, row)
	}
	return out
}

// selectorOf reads describe's Selector ("app=web,tier=front", set-based
// "app in (a,b)").
func selectorOf(v string) *metav1.LabelSelector {
	if none(v) {
		return nil
	}
	sel, err := metav1.ParseToLabelSelector(v)
	if err != nil {
		return nil
	}
	return sel
}
