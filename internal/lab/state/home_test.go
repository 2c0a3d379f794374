package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDir(t *testing.T) {
	tests := []struct {
		name, stateDir string
		env            map[string]string
		want           string
		wantErr        bool
	}{
		{name: "lab", stateDir: "/tmp/x", want: "/tmp/x"},
		{name: "lab", env: map[string]string{EnvHome: "/labs", "XDG_STATE_HOME": "/xdg", "HOME": "/home/u"}, want: "/labs/lab"},
		{name: "dev", env: map[string]string{"XDG_STATE_HOME": "/xdg", "HOME": "/home/u"}, want: "/xdg/kubectl-chain/labs/dev"},
		{name: "lab", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/state/kubectl-chain/labs/lab"},
		{name: "../etc", env: map[string]string{"HOME": "/home/u"}, wantErr: true},
		{name: "Lab", env: map[string]string{"HOME": "/home/u"}, wantErr: true},
	}
	for _, tt := range tests {
		got, err := Dir(tt.name, tt.stateDir, func(k string) string { return tt.env[k] })
		if (err != nil) != tt.wantErr {
			t.Errorf("Dir(%q) error = %v, wantErr %v", tt.name, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Dir(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

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
