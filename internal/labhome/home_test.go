package labhome

import (
	"os"
	"path/filepath"
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

// TestWithKubeconfig: the labs with a kubeconfig under the labs' home, by
// name; a lab without one (taken down, or never up) and stray files are
// not among them.
func TestWithKubeconfig(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{EnvHome: home}[k] }
	if got, err := WithKubeconfig(env); err != nil || len(got) != 0 {
		t.Fatalf("empty home: %v, %v", got, err)
	}
	for _, d := range []string{"lab", "dev", "half-down", "Bad_Name"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "half-down" {
			if err := os.WriteFile(filepath.Join(home, d, "kubeconfig"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := WithKubeconfig(env)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"dev", "lab"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
