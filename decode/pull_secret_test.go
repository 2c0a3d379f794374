package decode

import (
	"slices"
	"testing"
)

// TestPullSecretWords: the kubelet's words for a pull Secret it cannot
// read, as users quote them: the event of 1.19 on (kubernetes/website#48718
// shows it with the name in angle brackets; metrico/gigapipe-helm#9 with a
// chart's name) and the log line before it (kiwigrid/helm-charts#232).
func TestPullSecretWords(t *testing.T) {
	for _, tt := range []struct {
		message string
		want    []string
	}{
		{"Unable to retrieve some image pull secrets (<regcred>); attempting to pull the image may not succeed.", []string{"regcred"}},
		{`Unable to retrieve some image pull secrets (qryn-write-test-regcred); attempting to pull the image may not succeed.`, []string{"qryn-write-test-regcred"}},
		{`Nov 26 12:07:44 ip-10-8-10-126 kubelet: W1126 12:07:44.833517    3683 kubelet_pods.go:842] Unable to retrieve pull secret default/artifactory-docker-secret for default/qliksense-edge-auth-565cffd699-5wp7w due to secrets "artifactory-docker-secret" not found.  The image pull may not succeed.`, []string{"artifactory-docker-secret"}},
		{`Failed to pull image "nginx:1.0": rpc error: code = NotFound desc = failed to pull and unpack image`, nil},
	} {
		if got := PullSecretsMissing(tt.message); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.message, got, tt.want)
		}
		ds := Explain("", tt.message)
		if tt.want != nil && (len(ds) == 0 || ds[0].Cause != ImagePullSecretNotFound) {
			t.Errorf("explain %s: %+v, want %s", tt.message, ds, ImagePullSecretNotFound)
		}
	}
}
