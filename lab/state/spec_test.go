package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpecRoundTrip(t *testing.T) {
	l := Layout{Dir: t.TempDir()}
	want := Spec{Name: "lab", Nodes: NodeShape{Count: 2, CPU: "4", Memory: "8Gi", Pods: 110}, Ports: Ports{APIServer: 6443}}
	if err := WriteSpec(l, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSpec(l)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lab-node-1", "lab-node-2"}, got.NodeNames()); diff != "" {
		t.Errorf("node names (-want +got):\n%s", diff)
	}
}
