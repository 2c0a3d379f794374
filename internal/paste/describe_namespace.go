package paste

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describeClaim rebuilds a PersistentVolumeClaim from kubectl describe
// pvc (describePersistentVolumeClaim): its class, phase, volume,
// capacity, access modes, conditions and events. Used By names its pods.
func (p *parser) describeClaim(b block) {
	c := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: p.objectMeta(b, "PersistentVolumeClaim")}
	if b.has("StorageClass") {
		// An empty StorageClass line is a claim without one (kubectl
		// prints "" for nil and "" alike).
		sc := b.value("StorageClass")
		c.Spec.StorageClassName = &sc
	}
	status := b.value("Status")
	if rest, ok := strings.CutPrefix(status, "Terminating"); ok {
		t := metav1.Time{}
		c.DeletionTimestamp = &t
		p.rel = append(p.rel, relTime{at: c.DeletionTimestamp, age: lastsOf(rest)})
		status = string(corev1.ClaimBound) // a claim deleted while in use stays bound
	}
	c.Status.Phase = corev1.PersistentVolumeClaimPhase(status)
	c.Spec.VolumeName = b.value("Volume")
	if v := strings.Trim(b.value("Finalizers"), "[]"); v != "" {
		c.Finalizers = strings.Fields(v)
	}
	if q, err := resource.ParseQuantity(b.value("Capacity")); err == nil {
		c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: q}
	}
	c.Status.AccessModes = accessModesOf(b.value("Access Modes"))
	if m := b.value("VolumeMode"); m != "" {
		vm := corev1.PersistentVolumeMode(m)
		c.Spec.VolumeMode = &vm
	}
	if f, ok := b.get("Conditions"); ok {
		for _, l := range f.body {
			col := columns(l.text)
			if len(col) < 2 || col[1] != "True" && col[1] != "False" && col[1] != "Unknown" {
				continue
			}
			pc := corev1.PersistentVolumeClaimCondition{Type: corev1.PersistentVolumeClaimConditionType(col[0]), Status: corev1.ConditionStatus(col[1])}
			if len(col) >= 5 {
				pc.Reason = col[4]
			}
			if len(col) >= 6 {
				pc.Message = strings.Join(col[5:], "  ")
			}
			c.Status.Conditions = append(c.Status.Conditions, pc)
		}
	}
	p.res.Claims = append(p.res.Claims, *c)
	p.read(b, "PersistentVolumeClaim", c.ObjectMeta)
}

// describeQuota rebuilds a ResourceQuota from kubectl describe quota
// (describeQuota): its scopes and, for each resource, used and hard.
func (p *parser) describeQuota(b block) {
	q := corev1.ResourceQuota{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"}, ObjectMeta: p.objectMeta(b, "ResourceQuota")}
	if v := b.value("Scopes"); v != "" {
		for _, s := range strings.Split(v, ", ") {
			q.Spec.Scopes = append(q.Spec.Scopes, corev1.ResourceQuotaScope(s))
		}
	}
	if f, ok := b.get("Resource Used Hard"); ok {
		usedHard(&q, f.body)
	}
	p.addQuota(q)
	p.res.Forms = append(p.res.Forms, "kubectl describe resourcequota "+key(q.Namespace, q.Name))
}

// usedHard reads the rows of a "Resource  Used  Hard" table.
func usedHard(q *corev1.ResourceQuota, rows []line) {
	for _, l := range rows {
		c := columns(l.text)
		if len(c) != 3 {
			continue
		}
		used, err1 := resource.ParseQuantity(c[1])
		hard, err2 := resource.ParseQuantity(c[2])
		if err1 != nil || err2 != nil {
			continue
		}
		if q.Status.Hard == nil {
			q.Status.Hard, q.Status.Used = corev1.ResourceList{}, corev1.ResourceList{}
		}
		q.Status.Hard[corev1.ResourceName(c[0])], q.Status.Used[corev1.ResourceName(c[0])] = hard, used
	}
	q.Spec.Hard = q.Status.Hard
}

// addQuota keeps a quota once: a namespace's section and the quota's own
// describe show the same.
func (p *parser) addQuota(q corev1.ResourceQuota) {
	for i, o := range p.res.Quotas {
		if o.Name == q.Name && o.Namespace == q.Namespace {
			p.res.Quotas[i] = q
			return
		}
	}
	p.res.Quotas = append(p.res.Quotas, q)
}

// describeNamespace rebuilds a Namespace from kubectl describe namespace
// (describeNamespace): its phase and conditions, and the quotas and
// limit ranges of its sections (DescribeResourceQuotas,
// DescribeLimitRanges), which describe prints without their limit
// ranges' names.
func (p *parser) describeNamespace(b block) {
	n := corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: p.objectMeta(b, "Namespace")}
	n.Status.Phase = corev1.NamespacePhase(b.value("Status"))
	if f, ok := b.get("Conditions"); ok {
		for _, l := range f.body {
			c := columns(l.text)
			if len(c) < 2 || c[1] != "True" && c[1] != "False" && c[1] != "Unknown" {
				continue
			}
			nc := corev1.NamespaceCondition{Type: corev1.NamespaceConditionType(c[0]), Status: corev1.ConditionStatus(c[1])}
			if len(c) >= 4 {
				nc.Reason = c[3]
			}
			if len(c) >= 5 {
				nc.Message = strings.Join(c[4:], "  ")
			}
			n.Status.Conditions = append(n.Status.Conditions, nc)
		}
	}
	if f, ok := b.get("Resource Quotas"); ok {
		var q *corev1.ResourceQuota
		var rows []line
		flush := func() {
			if q != nil {
				usedHard(q, rows)
				p.addQuota(*q)
			}
		}
		for _, l := range f.body {
			if l.key == "Name" {
				flush()
				q = &corev1.ResourceQuota{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"},
					ObjectMeta: metav1.ObjectMeta{Name: l.val, Namespace: n.Name, UID: UID("ResourceQuota", n.Name, l.val)}}
				rows = nil
				continue
			}
			rows = append(rows, l)
		}
		flush()
	}
	if f, ok := b.get("Resource Limits"); ok {
		lr := corev1.LimitRange{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"}, ObjectMeta: metav1.ObjectMeta{Namespace: n.Name}}
		for _, l := range f.body {
			c := columns(l.text)
			if len(c) != 7 || c[0] == "Type" || strings.Trim(l.text, "- ") == "" {
				continue
			}
			item := corev1.LimitRangeItem{Type: corev1.LimitType(c[0])}
			for i, at := range []*corev1.ResourceList{&item.Min, &item.Max, &item.DefaultRequest, &item.Default, &item.MaxLimitRequestRatio} {
				if q, err := resource.ParseQuantity(c[2+i]); err == nil && c[2+i] != "-" {
					*at = corev1.ResourceList{corev1.ResourceName(c[1]): q}
				}
			}
			lr.Spec.Limits = append(lr.Spec.Limits, item)
		}
		p.res.LimitRanges = append(p.res.LimitRanges, lr)
	}
	p.res.Namespaces = append(p.res.Namespaces, n)
	p.res.Forms = append(p.res.Forms, "kubectl describe namespace "+n.Name)
}
