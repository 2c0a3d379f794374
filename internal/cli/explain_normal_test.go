package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/decode"
)

// TestExplainNormalEvents: the events of a healthy Deployment (the lab's
// real ones: pulled, created, started, scheduled) name no cause, and
// explain says they are not failures (it named ImagePullFailed for
// "Container image ... already present on machine" and "Successfully
// pulled image").
func TestExplainNormalEvents(t *testing.T) {
	r := runWith(t, nil, "explain", "-f", filepath.Join("..", "..", "testdata", "captures", "healthy.yaml"), "-o", "json")
	var items []Explanation
	decodeJSON(t, r.stdout, &items)
	normal := 0
	for _, it := range items {
		for _, c := range it.Causes {
			if c.Terminal.Mode != decode.Transient { // a pull in progress is progress, not a failure
				t.Errorf("%s %s %q: explained as %s", it.Object, it.Reason, it.Message, c.ID)
			}
		}
		if it.Normal != "" {
			normal++
		}
	}
	if r.code != ExitHealthy || normal == 0 {
		t.Errorf("exit %d, %d normal events of %d; want 0 and the pulls, creations and starts said normal", r.code, normal, len(items))
	}
	for _, msg := range []string{`Container image "registry.lab.internal/web:v1" already present on machine`, "Container started", "Successfully assigned shop/web-1 to lab-node-1"} {
		if r := runWith(t, nil, "explain", msg); r.code != ExitHealthy || !strings.HasPrefix(r.stdout, "not a failure: ") {
			t.Errorf("explain %q: exit %d\n%s", msg, r.code, r.stdout)
		}
	}
}
