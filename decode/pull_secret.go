package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// ImagePullSecretNotFound: the pod names an image pull Secret that does
// not exist, so the kubelet pulls without those credentials.
const ImagePullSecretNotFound chain.CauseID = "ImagePullSecretNotFound"

var pullSecretCauses = []Cause{
	{ID: ImagePullSecretNotFound, Link: chain.LinkContainers,
		Summary:  "the pod's imagePullSecrets names a Secret that does not exist: the kubelet pulls without those credentials, and a private registry refuses the pull",
		NextStep: "create the Secret (kubectl create secret docker-registry {NAME} -n {NAMESPACE} ...) or fix the name in spec.template.spec.imagePullSecrets; if a controller writes it (an ExternalSecret, a credential refresher), look at that controller",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
}

// The kubelet's words for a pull Secret it cannot read: the
// FailedToRetrieveImagePullSecret event of pkg/kubelet/kubelet_pods.go
// (v1.37.2 getPullSecretsForPod, since 1.19), and the log line of the
// releases before it ("Unable to retrieve pull secret NS/NAME for NS/POD
// due to secret(s) \"NAME\" not found.  The image pull may not succeed.",
// kubelet_pods.go of 1.15 to 1.18, quoted in kiwigrid/helm-charts#232).
var (
	pullSecretEvent = regexp.MustCompile(`Unable to retrieve some image pull secrets \(([^)]*)\); attempting to pull the image may not succeed`)
	pullSecretLog   = regexp.MustCompile(`Unable to retrieve pull secret ([^/\s]+)/(\S+) for \S+ due to secrets? "[^"]*" not found`)
)

// PullSecretsMissing are the Secrets the kubelet's message says it could
// not read, nil when the message is not that one.
func PullSecretsMissing(message string) []string {
	if m := pullSecretEvent.FindStringSubmatch(message); m != nil {
		var out []string
		for _, n := range strings.Split(m[1], ",") {
			if n = strings.Trim(strings.TrimSpace(n), "<>"); n != "" {
				out = append(out, n)
			}
		}
		return out
	}
	if m := pullSecretLog.FindStringSubmatch(message); m != nil {
		return []string{m[2]}
	}
	return nil
}

// PullSecretWords decodes the kubelet's message about a pull Secret it
// could not read.
func PullSecretWords(message string) (Decoded, bool) {
	names := PullSecretsMissing(message)
	if len(names) == 0 {
		return Decoded{}, false
	}
	return Decoded{Cause: ImagePullSecretNotFound,
		Summary: fmt.Sprintf("image pull Secret %s does not exist: the kubelet pulls without it, and a registry that needs those credentials refuses the pull", strings.Join(quoteAll(names), ", ")),
		Details: []chain.Detail{{Key: "kind", Value: "secret"}, {Key: "name", Value: names[0]}}}, true
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
