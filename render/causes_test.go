package render

import (
	"bytes"
	"testing"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// testCauses is a small catalogue, deliberately out of order.
var testCauses = []decode.Cause{
	{
		ID: chain.CauseID("ImagePulling"), Link: chain.LinkContainers,
		Summary:  "the kubelet is pulling the image",
		NextStep: "wait; a large image takes a while",
		Terminal: decode.TerminalRule{Mode: decode.Transient},
	},
	{
		ID: chain.CauseID("ImageNotFound"), Link: chain.LinkContainers,
		Summary:  "the image reference does not exist in the registry",
		NextStep: "fix spec.template.spec.containers[].image, or push the tag",
		Terminal: decode.TerminalRule{Mode: decode.AfterRepeats, Repeats: 2},
	},
	{
		ID: chain.CauseID("DeploymentNotFound"), Link: chain.LinkStored,
		Summary:  "the Deployment does not exist in the namespace",
		NextStep: "check the name and namespace: kubectl get deployments -n <namespace>",
		Terminal: decode.TerminalRule{Mode: decode.Immediate},
	},
	{
		ID: chain.CauseID("QuotaExceeded"), Link: chain.LinkPods,
		Summary:  "a ResourceQuota of the namespace rejects the pods | admission",
		NextStep: "lower the pod's resource requests, or raise the quota (kubectl describe resourcequota -n <namespace>)",
		Terminal: decode.TerminalRule{Mode: decode.AfterGrace},
	},
	{
		ID: chain.CauseID("InsufficientCPU"), Link: chain.LinkNodeAssignment,
		Summary:  "no node has enough allocatable CPU left for the pod's requests",
		NextStep: "lower spec.template.spec.containers[].resources.requests.cpu, or add nodes",
		Terminal: decode.TerminalRule{Mode: decode.AfterGrace},
	},
}

func TestCausesTextGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"causes.txt", Options{}},
		{"causes.width60.txt", Options{Width: 60}},
	} {
		var b bytes.Buffer
		if err := CausesText(&b, testCauses, tc.o); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, tc.name, b.String())
	}
}

func TestCausesMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := CausesMarkdown(&b, testCauses); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "causes.md", b.String())
}

// TestCausesDeterministic: the order of the catalogue given does not change
// the output, so docs/causes.md stays in sync however the catalogue is built.
func TestCausesDeterministic(t *testing.T) {
	reversed := make([]decode.Cause, len(testCauses))
	for i, c := range testCauses {
		reversed[len(testCauses)-1-i] = c
	}
	var a, b bytes.Buffer
	if err := CausesMarkdown(&a, testCauses); err != nil {
		t.Fatal(err)
	}
	if err := CausesMarkdown(&b, reversed); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("markdown depends on input order:\n%s\n---\n%s", a.String(), b.String())
	}
}
