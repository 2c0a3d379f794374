package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

// serveName names the watcher's objects in the cluster.
const serveName = "kubectl-chain"

type serveManifestOptions struct {
	namespace, image string
	events           bool
}

func newServeManifestsCommand(o *Options) *cobra.Command {
	m := &serveManifestOptions{}
	cmd := &cobra.Command{
		Use:   "manifests --image IMAGE [--namespace kubectl-chain] [--events]",
		Short: "Print the manifests that run kubectl chain serve in the cluster",
		Long: `Print, as YAML for kubectl apply -f -, what runs kubectl chain serve -A in the
cluster: a ServiceAccount, the ClusterRole of kubectl chain rbac -A (get, list
and watch; never Secrets) and its binding, with --events a ClusterRole that
may create events, a Deployment of one replica (non-root, read-only root
filesystem, no privileges), a Service for its metrics, and an example
PrometheusRule (the Prometheus Operator's) that alerts on a workload broken
for 5 minutes. The namespace must exist.`,
		Example: `  kubectl create namespace kubectl-chain
  kubectl chain serve manifests --image registry.example.com/kubectl-chain:v1 | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if m.image == "" {
				return usageErrorf("--image is required: the kubectl-chain image in your registry (docs/serve.md says how it is built)")
			}
			if errs := validation.IsDNS1123Label(m.namespace); len(errs) > 0 {
				return usageErrorf("--namespace %q: %s", m.namespace, strings.Join(errs, "; "))
			}
			out, err := serveManifests(m)
			if err != nil {
				return err
			}
			_, err = o.Out.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&m.namespace, "namespace", serveName, "the namespace to run it in")
	cmd.Flags().StringVar(&m.image, "image", "", "the kubectl-chain image (required)")
	cmd.Flags().BoolVar(&m.events, "events", false, "run it with --events, and grant create on events")
	return cmd
}

// serveManifests are the objects that run the watcher.
func serveManifests(m *serveManifestOptions) ([]byte, error) {
	labels := map[string]string{"app.kubernetes.io/name": serveName, "app.kubernetes.io/component": "serve"}
	sa := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: m.namespace, Name: serveName}
	rbac, err := rbacManifests("", sa)
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "-A", "--listen", defaultListen}
	docs := []any{&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: serveName, Namespace: m.namespace, Labels: labels}}}
	if m.events {
		args = append(args, "--events")
		role := serveName + "-events"
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
			ObjectMeta: metav1.ObjectMeta{Name: serveName, Namespace: m.namespace, Labels: labels},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{ServiceAccountName: serveName,
						SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)),
							SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
						Containers: []corev1.Container{{Name: "serve", Image: m.image, Args: args, Ports: []corev1.ContainerPort{port},
							ReadinessProbe: probe("/readyz"), LivenessProbe: probe("/healthz"),
							Resources: corev1.ResourceRequirements{Requests: resources("50m", "128Mi"), Limits: resources("", "600Mi")},
							SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
								Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}}}}}},
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: serveName, Namespace: m.namespace, Labels: labels},
			Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "metrics", Port: 8080, TargetPort: intstr.FromString("metrics")}}}},
		prometheusRule(m.namespace, labels))
	out, err := yamlDocs(fmt.Sprintf("# kubectl chain %s serve: a watcher with Prometheus metrics (docs/serve.md).\n", Version()), docs)
	return append(out, rbac...), err
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

// prometheusRule is the Prometheus Operator's rule with the example alert:
// a workload broken for 5 minutes, with its link and cause.
func prometheusRule(ns string, labels map[string]string) map[string]any {
	return map[string]any{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "PrometheusRule",
		"metadata":   map[string]any{"name": serveName, "namespace": ns, "labels": labels},
		"spec": map[string]any{"groups": []any{map[string]any{
			"name": "kubectl-chain",
			"rules": []any{map[string]any{
				"alert":  "WorkloadBroken",
				"expr":   "max by (namespace, kind, name, link, cause) (kubectl_chain_workload_broken_info) == 1",
				"for":    "5m",
				"labels": map[string]any{"severity": "warning"},
				"annotations": map[string]any{
					"summary":     "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} is broken at {{ $labels.link }}: {{ $labels.cause }}",
					"description": "kubectl chain names the first broken link of the workload's chain. Run kubectl chain {{ $labels.kind }}/{{ $labels.name }} -n {{ $labels.namespace }} for the evidence and the next step.",
				},
			}},
		}}},
	}
}
