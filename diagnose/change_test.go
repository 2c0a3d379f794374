package diagnose

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// changeTemplate is a pod template of container web with the image's tag
// and an env variable from ConfigMap web's key.
func changeTemplate(tag, key, cpu string) corev1.PodTemplateSpec {
	c := corev1.Container{Name: "web", Image: "registry.example.com/web:" + tag,
		Env: []corev1.EnvVar{{Name: "GREETING", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web"}, Key: key}}}}}
	if cpu != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
}

// changeDeployment is Deployment shop/web at template now, with a
// ReplicaSet a revision for each template given (the last one now's), the
// older ones available as given.
func changeDeployment(now corev1.PodTemplateSpec, olderAvailable int32, older ...corev1.PodTemplateSpec) *chain.Snapshot {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "d-uid"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(2)), Template: now}}
	s := &chain.Snapshot{Kind: chain.KindDeployment, Namespace: "shop", Name: "web", Deployment: d}
	for i, t := range append(older, now) {
		rs := appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-" + string(rune('a'+i)),
			CreationTimestamp: metav1.NewTime(walkT0.Add(time.Duration(i) * time.Minute)),
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": string(rune('1' + i))},
			OwnerReferences:   []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d-uid", Controller: ptr.To(true)}}},
			Spec: appsv1.ReplicaSetSpec{Template: t}}
		if i < len(older) {
			rs.Status.AvailableReplicas = olderAvailable
		}
		s.ReplicaSets = append(s.ReplicaSets, rs)
	}
	return s
}

// TestWhatChangedDeployment: the fields between the last revision that ran
// ready and the one rolling out (issue 23: a broken image tag, a removed
// ConfigMap key, raised requests), with the rollback only when the older
// revision is known to have run ready; a first revision and an unchanged
// template say so.
func TestWhatChangedDeployment(t *testing.T) {
	good := changeTemplate("v1", "greeting", "100m")
	for _, tt := range []struct {
		name      string
		now       corev1.PodTemplateSpec
		available int32
		older     []corev1.PodTemplateSpec
		kind      string
		fields    []string
		rollback  string
	}{
		{"image", changeTemplate("v9", "greeting", "100m"), 2, []corev1.PodTemplateSpec{good}, chain.ChangeTemplate,
			[]string{"containers[web].image"}, "kubectl rollout undo deploy/web -n shop --to-revision=1"},
		{"configmap key", changeTemplate("v1", "removed", "100m"), 2, []corev1.PodTemplateSpec{good}, chain.ChangeTemplate,
			[]string{"containers[web].env[GREETING]"}, "kubectl rollout undo deploy/web -n shop --to-revision=1"},
		{"requests", changeTemplate("v1", "greeting", "64"), 1, []corev1.PodTemplateSpec{changeTemplate("v0", "greeting", ""), good}, chain.ChangeTemplate,
			[]string{"containers[web].resources"}, "kubectl rollout undo deploy/web -n shop --to-revision=2"},
		{"older scaled to 0", changeTemplate("v9", "greeting", "100m"), 0, []corev1.PodTemplateSpec{good}, chain.ChangeTemplate,
			[]string{"containers[web].image"}, ""},
		{"first revision", good, 0, nil, chain.ChangeFirstRevision, nil, ""},
	} {
		c := whatChanged(changeDeployment(tt.now, tt.available, tt.older...))
		if c == nil {
			t.Errorf("%s: no change", tt.name)
			continue
		}
		var fields []string
		for _, f := range c.Fields {
			fields = append(fields, f.Field)
		}
		if c.Kind != tt.kind || strings.Join(fields, ",") != strings.Join(tt.fields, ",") || c.Rollback != tt.rollback {
			t.Errorf("%s: %+v, want kind %s fields %v rollback %q", tt.name, *c, tt.kind, tt.fields, tt.rollback)
		}
		if tt.rollback == "" && c.Note == "" {
			t.Errorf("%s: no rollback and no note saying why: %+v", tt.name, *c)
		}
	}
	c := whatChanged(changeDeployment(changeTemplate("v9", "greeting", "100m"), 2, good))
	if f := c.Fields[0]; f.From != `"registry.example.com/web:v1"` || f.To != `"registry.example.com/web:v9"` || !c.HealthKnown {
		t.Errorf("image change: %+v", *c)
	}
	// Created paused: no ReplicaSet at all, a first revision. Paused after
	// an edit: the live template against the last ReplicaSet, as the
	// revision the controller will create.
	s := changeDeployment(good, 0)
	s.ReplicaSets = nil
	if c := whatChanged(s); c == nil || c.Kind != chain.ChangeFirstRevision {
		t.Errorf("created paused: %+v, want %s", c, chain.ChangeFirstRevision)
	}
	s = changeDeployment(good, 2)
	s.Deployment.Spec.Template = changeTemplate("v9", "greeting", "100m")
	if c := whatChanged(s); c == nil || c.Kind != chain.ChangeTemplate || c.To != "2" || c.ToName != "not created yet" || c.From != "1" {
		t.Errorf("edited paused: %+v", c)
	}
	// The revision rolling out already ran ready: not its template.
	s = changeDeployment(good, 2, changeTemplate("v0", "greeting", ""))
	s.ReplicaSets[1].Status.AvailableReplicas = 2
	s.ReplicaSets[0].Status.AvailableReplicas = 0
	if c := whatChanged(s); c.Kind != chain.ChangeReplicasOnly || len(c.Fields) > 0 {
		t.Errorf("current revision ran ready: %+v", *c)
	}
}

// TestWhatChangedControllerRevisions: a StatefulSet's or DaemonSet's older
// revisions are the template patches of its ControllerRevisions; a pod
// that is ready carries the revision it runs. A revision read without data
// (captures of before) is named as not read.
func TestWhatChangedControllerRevisions(t *testing.T) {
	good := changeTemplate("v1", "greeting", "")
	data, err := json.Marshal(map[string]any{"spec": map[string]any{"template": good}})
	if err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "sts-uid"},
		Spec:   appsv1.StatefulSetSpec{Template: changeTemplate("v9", "greeting", "")},
		Status: appsv1.StatefulSetStatus{UpdateRevision: "web-222", CurrentRevision: "web-111"}}
	cr := func(name string, n int64, raw []byte, owner types.UID) appsv1.ControllerRevision {
		return appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name,
			OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "web", UID: owner, Controller: ptr.To(true)}}},
			Revision: n, Data: runtime.RawExtension{Raw: raw}}
	}
	pod := kindPod("web-1", sts, "StatefulSet", corev1.PodRunning, true, map[string]string{appsv1.ControllerRevisionHashLabelKey: "web-111"})
	s := &chain.Snapshot{Kind: chain.KindStatefulSet, Namespace: "shop", Name: "web", StatefulSet: sts, Pods: []corev1.Pod{pod},
		Revisions: []appsv1.ControllerRevision{cr("web-222", 2, nil, "sts-uid"), cr("web-111", 1, data, "sts-uid"), cr("other-1", 1, data, "other")}}
	c := whatChanged(s)
	if c == nil || c.Kind != chain.ChangeTemplate || len(c.Fields) != 1 || c.Fields[0].Field != "containers[web].image" ||
		c.From != "1" || c.To != "2" || c.Rollback != "kubectl rollout undo sts/web -n shop --to-revision=1" {
		t.Fatalf("StatefulSet: %+v", c)
	}
	// Edited, not yet observed: the newest revision is still the old
	// template, so the live one is given to no revision.
	sts.Generation = 3
	sts.Status.ObservedGeneration = 2
	if c := whatChanged(s); c == nil || c.Kind != chain.ChangeNotRead || len(c.Fields) > 0 || !strings.Contains(c.Note, "generation 3") {
		t.Errorf("generation not observed: %+v", c)
	}
	sts.Status.ObservedGeneration = 3
	// The revision rolling out is the update revision, not the
	// highest-numbered one.
	sts.Status.UpdateRevision = "web-111"
	if c := whatChanged(s); c == nil || c.Kind != chain.ChangeReplicasOnly {
		t.Errorf("update revision web-111 ran ready: %+v", c)
	}
	sts.Status.UpdateRevision = "web-222"
	s.Revisions[1].Data.Raw = nil
	if c := whatChanged(s); c.Kind != chain.ChangeNotRead || c.Rollback != "" {
		t.Errorf("revision without data: %+v", *c)
	}
	// A DaemonSet's pods carry the hash alone (the name's last part).
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "sts-uid"},
		Spec: appsv1.DaemonSetSpec{Template: changeTemplate("v1", "greeting", "64")}}
	pod.Labels[appsv1.ControllerRevisionHashLabelKey] = "111"
	s = &chain.Snapshot{Kind: chain.KindDaemonSet, Namespace: "shop", Name: "web", DaemonSet: ds, Pods: []corev1.Pod{pod},
		Revisions: []appsv1.ControllerRevision{cr("web-111", 1, data, "sts-uid"), cr("web-222", 2, nil, "sts-uid")}}
	if c := whatChanged(s); c.Kind != chain.ChangeTemplate || len(c.Fields) != 1 || c.Fields[0].Field != "containers[web].resources" ||
		c.Rollback != "kubectl rollout undo ds/web -n shop --to-revision=1" {
		t.Errorf("DaemonSet: %+v", *c)
	}
}
