package realnode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckKernel(t *testing.T) {
	v1 := func() ([]mount, error) {
		return []mount{{"/sys/fs/cgroup/cpu,cpuacct", "cgroup"}, {"/sys/fs/cgroup/memory", "cgroup"}, {"/sys/fs/cgroup/cpuset", "cgroup"}}, nil
	}
	noCpuset := func() ([]mount, error) {
		return []mount{{"/sys/fs/cgroup/cpu,cpuacct", "cgroup"}, {"/sys/fs/cgroup/memory", "cgroup"}}, nil
	}
	v2 := func() ([]mount, error) { return []mount{{"/sys/fs/cgroup", "cgroup2"}}, nil }
	overlay := func(string) ([]byte, error) { return []byte("nodev\tproc\n\text4\nnodev\toverlay\n"), nil }
	none := func(string) ([]byte, error) { return []byte("nodev\tproc\n\text4\n"), nil }
	for _, tt := range []struct {
		name   string
		mounts func() ([]mount, error)
		fs     func(string) ([]byte, error)
		want   string
	}{
		{"cgroup v1", v1, overlay, ""},
		{"cgroup v2", v2, overlay, ""},
		{"no cpuset", noCpuset, overlay, "lacks cpuset"},
		{"no overlayfs", v1, none, "overlayfs"},
	} {
		err := checkKernel(tt.mounts, tt.fs)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckPrograms(t *testing.T) {
	dir := t.TempDir()
	for _, p := range Programs[:3] {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err := checkPrograms(dir)
	if err == nil || !strings.Contains(err.Error(), "bridge, host-local, loopback, chain-workload in "+dir) || !strings.Contains(err.Error(), "go build") {
		t.Errorf("error = %v, want the missing programs and how to build them", err)
	}
	for _, p := range Programs[3:] {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkPrograms(dir); err != nil {
		t.Errorf("all programs there: %v", err)
	}
}
