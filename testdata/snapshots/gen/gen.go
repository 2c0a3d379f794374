package main

import (
	"fmt"
	"math/rand"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	ns        = "shop"
	app       = "web"
	webImage  = "registry.lab.internal/shop/web:1.4.2"
	saVolName = "kube-api-access-" // + 5 random characters, as the ServiceAccount admission plugin names it
)

// safe is rand.SafeEncodeString's alphabet (apimachinery util/rand).
const safe = "bcdfghjklmnpqrstvwxz2456789"

// G builds one scenario's objects.
type G struct {
	name string
	t0   time.Time
	rnd  *rand.Rand
	rv   int
	d    *appsv1.Deployment
	rss  []*appsv1.ReplicaSet
	pods []*corev1.Pod
	evs  []*corev1.Event
}

func newG(name string, t0 time.Time) *G {
	seed := int64(0)
	for _, c := range name {
		seed = seed*31 + int64(c)
	}
	return &G{name: name, t0: t0, rnd: rand.New(rand.NewSource(seed)), rv: 40000 + int(seed%50000+50000)%50000}
}

func (g *G) at(d time.Duration) metav1.Time { return metav1.NewTime(g.t0.Add(d)) }

func (g *G) uid() types.UID {
	b := make([]byte, 16)
	g.rnd.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

func (g *G) hex(n int) string {
	const h = "0123456789abcdef"
	out := make([]byte, n)
	for i := range out {
		out[i] = h[g.rnd.Intn(16)]
	}
	return string(out)
}

func (g *G) safe(n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = safe[g.rnd.Intn(len(safe))]
	}
	return string(out)
}

func (g *G) nextRV() string {
	g.rv += 1 + g.rnd.Intn(40)
	return fmt.Sprint(g.rv)
}

func ptr[T any](v T) *T { return &v }

func q(s string) resource.Quantity { return resource.MustParse(s) }

// webTemplate is the pod template as the API server stores it in the
// Deployment, defaults applied.
func webTemplate(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:            "web",
				Image:           image,
				ImagePullPolicy: corev1.PullIfNotPresent,
				Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/ready", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
					TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: q("250m"), corev1.ResourceMemory: q("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: q("512Mi")},
				},
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr(int64(30)),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// deployment stores the Deployment.
func (g *G) deployment(tmpl corev1.PodTemplateSpec, replicas int32, generation int64, revision string) *appsv1.Deployment {
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: app, Namespace: ns, UID: g.uid(), Generation: generation,
			CreationTimestamp: g.at(0),
			Labels:            map[string]string{"app": app},
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": revision},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: tmpl,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
	}
	d.Status.ObservedGeneration = generation
	d.Status.TerminatingReplicas = ptr(int32(0))
	g.d = d
	return d
}

// cond builds a Deployment condition.
func (g *G) dcond(t appsv1.DeploymentConditionType, st corev1.ConditionStatus, reason, msg string, update, transition time.Duration) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: t, Status: st, Reason: reason, Message: msg,
		LastUpdateTime: g.at(update), LastTransitionTime: g.at(transition)}
}

// replicaSet is the Deployment controller's ReplicaSet for tmpl.
func (g *G) replicaSet(tmpl corev1.PodTemplateSpec, revision string, replicas int32, created time.Duration) *appsv1.ReplicaSet {
	hash := g.safe(10)
	t := *tmpl.DeepCopy()
	t.Labels["pod-template-hash"] = hash
	desired := *g.d.Spec.Replicas
	rs := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name: app + "-" + hash, Namespace: ns, UID: g.uid(), Generation: 1,
			CreationTimestamp: g.at(created),
			Labels:            map[string]string{"app": app, "pod-template-hash": hash},
			Annotations: map[string]string{
				"deployment.kubernetes.io/desired-replicas": fmt.Sprint(desired),
				"deployment.kubernetes.io/max-replicas":     fmt.Sprint(desired + (desired+3)/4),
				"deployment.kubernetes.io/revision":         revision,
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: g.d.Name,
				UID: g.d.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app, "pod-template-hash": hash}},
			Template: t,
		},
	}
	rs.Status.ObservedGeneration = 1
	rs.Status.TerminatingReplicas = ptr(int32(0))
	g.rss = append(g.rss, rs)
	return rs
}

func rsStatus(rs *appsv1.ReplicaSet, replicas, ready, available int32) {
	rs.Status.Replicas = replicas
	rs.Status.FullyLabeledReplicas = replicas
	rs.Status.ReadyReplicas = ready
	rs.Status.AvailableReplicas = available
}

func (g *G) hash(rs *appsv1.ReplicaSet) string { return rs.Labels["pod-template-hash"] }

var nodes = []string{"", "lab-worker-1", "lab-worker-2", "lab-worker-3"}

// pod is a pod of rs as the ReplicaSet controller and admission create it,
// bound to node n (0: not scheduled).
func (g *G) pod(rs *appsv1.ReplicaSet, created time.Duration, n int) *corev1.Pod {
	name := rs.Name + "-" + g.safe(5)
	sa := saVolName + g.safe(5)
	spec := *rs.Spec.Template.Spec.DeepCopy()
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = append(spec.Containers[i].VolumeMounts, corev1.VolumeMount{
			Name: sa, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"})
	}
	for i := range spec.InitContainers {
		spec.InitContainers[i].VolumeMounts = append(spec.InitContainers[i].VolumeMounts, corev1.VolumeMount{
			Name: sa, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"})
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: sa, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr(int32(420)),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}})
	spec.ServiceAccountName = "default"
	spec.DeprecatedServiceAccount = "default"
	spec.EnableServiceLinks = ptr(true)
	spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	spec.Priority = ptr(int32(0))
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))})
	spec.NodeName = nodes[n]
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: rs.Name + "-", Namespace: ns, UID: g.uid(), Generation: 1,
			CreationTimestamp: g.at(created),
			Labels:            map[string]string{"app": app, "pod-template-hash": g.hash(rs)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name,
				UID: rs.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec: spec,
	}
	p.Status.Phase = corev1.PodPending
	p.Status.QOSClass = corev1.PodQOSBurstable
	g.pods = append(g.pods, p)
	return p
}

// podCond builds a pod condition at offset t from t0.
func (g *G) podCond(t corev1.PodConditionType, st corev1.ConditionStatus, reason, msg string, at time.Duration) corev1.PodCondition {
	return corev1.PodCondition{Type: t, Status: st, Reason: reason, Message: msg, LastTransitionTime: g.at(at), ObservedGeneration: 1}
}

// onNode fills the status fields the kubelet sets once it runs the pod.
func (g *G) onNode(p *corev1.Pod, start time.Duration) {
	n := 0
	for i, name := range nodes {
		if name == p.Spec.NodeName {
			n = i
		}
	}
	host := fmt.Sprintf("10.10.0.%d", 10+n)
	p.Status.HostIP = host
	p.Status.HostIPs = []corev1.HostIP{{IP: host}}
	p.Status.StartTime = ptr(g.at(start))
	p.Status.ObservedGeneration = 1
}

func (g *G) podIP(p *corev1.Pod) {
	n := 0
	for i, name := range nodes {
		if name == p.Spec.NodeName {
			n = i
		}
	}
	ip := fmt.Sprintf("10.244.%d.%d", n, 10+g.rnd.Intn(200))
	p.Status.PodIP = ip
	p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
}

// cstatus is a container status with the fields the kubelet always sets.
func (g *G) cstatus(p *corev1.Pod, c corev1.Container, created bool) corev1.ContainerStatus {
	st := corev1.ContainerStatus{Name: c.Name, Image: c.Image}
	for _, m := range c.VolumeMounts {
		st.VolumeMounts = append(st.VolumeMounts, corev1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath,
			ReadOnly: m.ReadOnly, RecursiveReadOnly: ptr(corev1.RecursiveReadOnlyDisabled)})
	}
	if len(c.Resources.Requests) > 0 {
		st.AllocatedResources = c.Resources.Requests.DeepCopy()
		st.Resources = c.Resources.DeepCopy()
	}
	st.Started = ptr(false)
	if created {
		st.ContainerID = "containerd://" + g.hex(64)
		st.ImageID = imageRepo(c.Image) + "@sha256:" + digest(c.Image)
		st.User = &corev1.ContainerUser{Linux: &corev1.LinuxContainerUser{UID: 10001, GID: 10001, SupplementalGroups: []int64{10001}}}
	}
	return st
}

func imageRepo(img string) string {
	for i := len(img) - 1; i >= 0; i-- {
		if img[i] == ':' {
			return img[:i]
		}
		if img[i] == '/' {
			break
		}
	}
	return img
}

// digest is a fixed fake digest per image, so every pod of a template shows the same.
func digest(img string) string {
	r := rand.New(rand.NewSource(int64(len(img)) * 7919))
	for _, c := range img {
		r.Int63n(int64(c) + 1)
	}
	const h = "0123456789abcdef"
	out := make([]byte, 64)
	for i := range out {
		out[i] = h[r.Intn(16)]
	}
	return string(out)
}
