package serve

import (
	"testing"
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// TestVerdictEvent: a verdict change is an Event on the workload, Warning
// when it broke, with the cause and the next step.
func TestVerdictEvent(t *testing.T) {
	r := &chain.Report{Kind: chain.KindDeployment, Namespace: "shop", Name: "web", Verdict: chain.Verdict{Health: chain.Broken,
		Link: chain.LinkContainers, Cause: "ImageNotFound", Summary: `2/2 pods: image "web:v9" not found`, NextStep: "fix the image"}}
	c := Change{Key: Key{Namespace: "shop", Kind: "Deployment", Name: "web"}, From: Verdict{Health: chain.Healthy}, Report: r}
	ev := verdictEvent(c, "uid-1", time.Unix(1764920000, 0), "watcher-0")
	if ev.Type != "Warning" || ev.Reason != "ChainBroken" || ev.InvolvedObject.UID != "uid-1" || ev.InvolvedObject.APIVersion != "apps/v1" ||
		ev.Message != `kubectl chain: broken at containers: ImageNotFound (2/2 pods: image "web:v9" not found); next: fix the image; was healthy` {
		t.Errorf("event: %s %s %q %+v", ev.Type, ev.Reason, ev.Message, ev.InvolvedObject)
	}
	r.Verdict = chain.Verdict{Health: chain.Healthy}
	c.From = Verdict{Health: chain.Broken}
	if ev := verdictEvent(c, "uid-1", time.Unix(1764920000, 0), "watcher-0"); ev.Type != "Normal" || ev.Reason != "ChainHealthy" {
		t.Errorf("healed: %s %s", ev.Type, ev.Reason)
	}
}
