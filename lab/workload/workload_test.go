package workload

import (
	"reflect"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	env := map[string]string{"CHAIN_EXIT": "4", "CHAIN_ALLOC_MB": "8"}
	o, err := Parse([]string{"--exit", "3", "--after", "2s", "--unhealthy"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if o.Exit != 3 || o.After != 2*time.Second || !o.Unhealthy || o.AllocMB != 8 || o.HTTP != ":8080" {
		t.Errorf("flags before the environment: got %+v", o)
	}
	for _, args := range [][]string{{"--exit", "x"}, {"serve"}, {"--no-such-flag"}} {
		if _, err := Parse(args, func(string) string { return "" }); err == nil {
			t.Errorf("Parse(%q) accepted", args)
		}
	}
	if _, err := Parse(nil, func(k string) string {
		if k == "CHAIN_AFTER" {
			return "soon"
		}
		return ""
	}); err == nil {
		t.Error("a bad CHAIN_AFTER was accepted")
	}
}

func TestListeners(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []Listener
	}{
		{nil, []Listener{{":8080", ServesHTTP}}},
		{[]string{"--http", "", "--tcp", ":9000"}, []Listener{{":9000", ServesTCP}}},
		{[]string{"--tcp", ":9000", "--grpc", ":9090"}, []Listener{{":8080", ServesHTTP}, {":9000", ServesTCP}, {":9090", ServesGRPC}}},
		{[]string{"--http", ""}, nil},
	} {
		o, err := Parse(tt.args, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Listeners(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Listeners of %q = %v, want %v", tt.args, got, tt.want)
		}
	}
}
