package chain

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReleaseMeant: a release's Service that selects none of its
// workloads' pods is meant for the only one, or for the one sharing the
// most of its selector; a tie, or no label shared among several, is none,
// and a Service that selects some workload's pods is no one's mistake.
func TestReleaseMeant(t *testing.T) {
	tmpl := func(name string, labels map[string]string) Template {
		return Template{Ref: Ref{Kind: KindDeployment, Name: name}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}
	}
	svc := func(name string, sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Selector: sel}}
	}
	web := tmpl("web", map[string]string{"app": "web", "tier": "front"})
	api := tmpl("api", map[string]string{"app": "api", "tier": "back"})
	for _, tt := range []struct {
		name  string
		svcs  []*corev1.Service
		tmpls []Template
		want  map[Ref][]string
	}{
		{"the only workload", []*corev1.Service{svc("frontend", map[string]string{"app": "webapp"})}, []Template{web}, map[Ref][]string{web.Ref: {"frontend"}}},
		{"the closest", []*corev1.Service{svc("f", map[string]string{"app": "x", "tier": "front"})}, []Template{web, api}, map[Ref][]string{web.Ref: {"f"}}},
		{"a tie", []*corev1.Service{svc("f", map[string]string{"app": "x"})}, []Template{web, api}, map[Ref][]string{}},
		{"selects one", []*corev1.Service{svc("web", map[string]string{"app": "web"})}, []Template{web, api}, map[Ref][]string{}},
		{"no selector", []*corev1.Service{svc("ext", nil)}, []Template{web}, map[Ref][]string{}},
	} {
		got := ReleaseMeant(tt.svcs, tt.tmpls)
		if !maps.EqualFunc(got, tt.want, slices.Equal[[]string]) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
