package serve

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Name names the watcher's objects in the cluster.
const Name = "kubectl-chain"

// ManifestOptions are what serve's manifests are made of.
type ManifestOptions struct {
	// Namespace is the namespace to run the watcher in; Image its image.
	Namespace, Image string
	// Events runs it with --events, and grants create on events.
	Events bool
	// Version is kubectl chain's, said in the header.
	Version string
}

// ServiceAccount is the watcher's identity in namespace ns: the subject of
// the read-only RBAC it needs (kubectl chain rbac -A's).
func ServiceAccount(ns string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: Name}
}

// Manifests are the objects that run the watcher, as YAML for kubectl
// apply -f -, besides the read-only RBAC of its ServiceAccount.
func Manifests(m ManifestOptions) ([]byte, error) {
	labels := map[string]string{"app.kubernetes.io/name": Name, "app.kubernetes.io/component": "serve"}
	sa := ServiceAccount(m.Namespace)
	args := []string{"serve", "-A", "--listen", DefaultListen}
	docs := []any{&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: m.Namespace, Labels: labels}}}
	if m.Events {
		args = append(args, "--events")
		role := Name + "-events"
		docs = append(docs,
			&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
				ObjectMeta: metav1.ObjectMeta{Name: role, Labels: labels},
				Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}}}},
			&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: role, Labels: labels},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}, Subjects: []rbacv1.Subject{sa}})
	}
	port := corev1.ContainerPort{Name: "metrics", ContainerPort: 8080}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("metrics")}}, PeriodSeconds: 10}
	}
	docs = append(docs,
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: m.Namespace, Labels: labels},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{ServiceAccountName: Name,
						SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)),
							SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
						Containers: []corev1.Container{{Name: "serve", Image: m.Image, Args: args, Ports: []corev1.ContainerPort{port},
							ReadinessProbe: probe("/readyz"), LivenessProbe: probe("/healthz"),
							Resources: corev1.ResourceRequirements{Requests: resources("50m", "128Mi"), Limits: resources("", "600Mi")},
							SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
								Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}}}}}},
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: m.Namespace, Labels: labels},
			Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "metrics", Port: 8080, TargetPort: intstr.FromString("metrics")}}}},
		prometheusRule(m.Namespace, labels))
	return YAMLDocs(fmt.Sprintf("# kubectl chain %s serve: a watcher with Prometheus metrics (docs/serve.md).\n", m.Version), docs)
}

func resources(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}

// prometheusRule is the Prometheus Operator's rule with the alert rules
// (Rules), at their defaults.
func prometheusRule(ns string, labels map[string]string) map[string]any {
	return map[string]any{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "PrometheusRule",
		"metadata":   map[string]any{"name": Name, "namespace": ns, "labels": labels},
		"spec":       map[string]any{"groups": ruleGroups(DefaultRuleOptions)},
	}
}

// YAMLDocs is a YAML stream of docs after a header comment: the manifests
// serve prints, and the RBAC objects `kubectl chain rbac` prints.
func YAMLDocs(header string, docs []any) ([]byte, error) {
	var b strings.Builder
	b.WriteString(header)
	for _, d := range docs {
		y, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return []byte(b.String()), nil
}
