package labhome

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
