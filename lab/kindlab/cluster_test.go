package kindlab

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// TestConfigZonesWorkers: one control plane and the workers, each labelled
// with its zone as the simulated nodes are, so the spread scenarios hold.
func TestConfigZonesWorkers(t *testing.T) {
	zones := []string{"lab-zone-a", "lab-zone-b", "lab-zone-c"}
	c := Config(Params{Workers: 4, NodeImage: "node:v1", Zone: func(i int) string { return zones[i%3] }})
	type node struct {
		Role  v1alpha4.NodeRole
		Image string
		Zone  string
	}
	var got []node
	for _, n := range c.Nodes {
		got = append(got, node{n.Role, n.Image, n.Labels[corev1.LabelTopologyZone]})
	}
	want := []node{
		{v1alpha4.ControlPlaneRole, "node:v1", ""},
		{v1alpha4.WorkerRole, "node:v1", "lab-zone-a"},
		{v1alpha4.WorkerRole, "node:v1", "lab-zone-b"},
		{v1alpha4.WorkerRole, "node:v1", "lab-zone-c"},
		{v1alpha4.WorkerRole, "node:v1", "lab-zone-a"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}

func kindNode(name string, noSchedule bool, images ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if noSchedule {
		n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}
	}
	for _, img := range images {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: []string{img}})
	}
	return n
}

// TestStandInImage: a pause image every schedulable node holds (by tag, not
// digest; the last by name when several), whatever the tainted control
// plane holds; an error that says what to check when none is shared.
func TestStandInImage(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset(
		kindNode("cp", true, "mirror.lab.internal/pause:3.11"),
		kindNode("w1", false, "mirror.lab.internal/pause:3.10", "mirror.lab.internal/pause:3.9", "mirror.lab.internal/pause@sha256:ab", "mirror.lab.internal/kindnetd:v1"),
		kindNode("w2", false, "mirror.lab.internal/pause:3.10", "mirror.lab.internal/pause:3.9"),
	)
	got, err := StandInImage(ctx, c)
	if want := "mirror.lab.internal/pause:3.9"; err != nil || got != want { // by name, "3.9" > "3.10"
		t.Errorf("StandInImage = %q, %v; want %q", got, err, want)
	}

	_, err = StandInImage(ctx, fake.NewClientset(kindNode("w1", false, "mirror.lab.internal/pause:3.10"), kindNode("w2", false)))
	if err == nil || !strings.Contains(err.Error(), "status.images") {
		t.Errorf("no shared image: err = %v, want one that says where to look", err)
	}
}
