package decode

import "testing"

// TestImageNotFoundWords: a tag that is not in the registry, in the words
// of registries and clients the other tables do not hold.
func TestImageNotFoundWords(t *testing.T) {
	for name, msg := range map[string]string{
		// Azure/ipam#345 (2025): ACR's words for a missing tag; the image's
		// name starts with "ipamd", which is not the AWS VPC CNI's daemon.
		"acr tag ipamdev": `2025-02-11T11:48:59.703Z ERROR - DockerApiException: Docker API responded with status code=NotFound, response={"message":"manifest for registry.example.com/ipamdev-ui:latest not found: manifest unknown: manifest tagged by \"latest\" is not found"}`,
		// bank-vaults/bank-vaults#1493 (2023): Artifact Registry's error
		// code for a tag not pushed yet, as a webhook logged it.
		"artifact registry code": `time="2023-03-27T12:04:00Z" level=error msg="Admission review request failed" app=vault-secrets-webhook dry-run=false error="cannot fetch image descriptor: GET https://registry.example.com/v2/crux-ci/crux/ingestion-engine-api/manifests/2023.03.27.114644-d11ee01: MANIFEST_UNKNOWN: Failed to fetch \"2023.03.27.114644-d11ee01\"" kind=v1/Pod name= ns=default op=create path=/pods request-id=c67e0ae2-f935-49e6-a737-79350451b783 webhook-id=vault-secrets-pods webhook-kind=mutating wh-version=v1beta1`,
		// operator-framework/community-operators#2351 (2020): Quay's words
		// for a deleted tag, through CRI-O.
		"quay deleted tag": `Failed to pull image "registry.example.com/redhat-developer/openshift-jenkins-operator:0.4.1-ed5de33": rpc error: code = Unknown desc = Error reading manifest 0.4.1-ed5de33 in registry.example.com/redhat-developer/openshift-jenkins-operator: unknown: Tag 0.4.1-ed5de33 was deleted or has expired. To pull, revive via time machine.`,
	} {
		got := Explain("", msg)
		if len(got) == 0 || got[0].Cause != ImageNotFound {
			t.Errorf("%s: Explain gives %v, want ImageNotFound first", name, got)
		}
	}
}

// TestImageOCIAcceptNotNotFound: "manifest unknown" that says the
// registry holds an OCI index the client does not accept is no missing tag
// (huggingface/text-generation-inference#386, 2023: docker pull of a GHCR
// image with an old Docker Engine).
func TestImageOCIAcceptNotNotFound(t *testing.T) {
	msg := `Error response from daemon: manifest unknown: OCI index found, but Accept header does not support OCI indexes`
	got := Explain("", msg)
	if len(got) == 0 || got[0].Cause != ImagePullFailed {
		t.Errorf("Explain(%q) = %v, want ImagePullFailed first", msg, got)
	}
}

// TestImageNotFoundNamesBareImage: a runtime's error pasted without the
// kubelet's "Failed to pull image" still names the image, from Docker's
// "manifest for REF not found" or CRI-O's "docker://REF: " source (not the
// platform entry's digest it reads next).
func TestImageNotFoundNamesBareImage(t *testing.T) {
	for _, c := range []struct{ msg, image string }{
		// kubeflow/pipelines#5130 (2021): docker pull of a GCR tag not
		// built yet, the pipeline's pod in ImagePullBackOff.
		{`Error response from daemon: manifest for registry.example.com/ml-pipeline/ml-pipeline-gcp:1.4.0 not found: manifest unknown: Failed to fetch "1.4.0" from request "/v2/ml-pipeline/ml-pipeline-gcp/manifests/1.4.0".`,
			"registry.example.com/ml-pipeline/ml-pipeline-gcp:1.4.0"},
		// containers/podlet#82 (2024): a manifest list whose platform entry
		// is missing, through podman.
		{`Error: copying system image from manifest list: determining manifest MIME type for docker://registry.example.com/containers/podlet:v0.3.0: reading manifest sha256:284fb19670b144bf507548406a07b563077d419de335c685d6d9607794596ceb in registry.example.com/containers/podlet: manifest unknown`,
			"registry.example.com/containers/podlet:v0.3.0"},
	} {
		got := Explain("", c.msg)
		if len(got) == 0 || got[0].Cause != ImageNotFound || imageDetail(got[0]) != c.image {
			t.Errorf("Explain(%q) = %+v, want ImageNotFound naming image %s", c.msg, got, c.image)
		}
	}
}

func imageDetail(d Decoded) string {
	for _, x := range d.Details {
		if x.Key == "image" {
			return x.Value
		}
	}
	return ""
}
