package decode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// ImagePull decodes a container waiting reason+message (ErrImagePull,
// ImagePullBackOff, InvalidImageName, ErrImageNeverPull, RegistryUnavailable,
// SignatureValidationFailed, ImageInspectError) or a kubelet event reason+message
// about images (Failed "Failed to pull image ...", BackOff "Back-off pulling
// image ...", Pulling, ErrImageNeverPull, InspectFailed, and the kubelet's
// "Error: ErrImagePull"-style Failed events). ok is false when it is not about
// images, and for Pulled, which is a success and so no cause.
func ImagePull(reason, message string) (d Decoded, ok bool) {
	switch reason {
	case "ErrImagePull", "RegistryUnavailable", "SignatureValidationFailed":
		return imagePullError("", message), true
	case "ImagePullBackOff", "BackOff":
		return imageBackOff(reason, message)
	case "InvalidImageName":
		return imageInvalid(message), true
	case "ErrImageNeverPull":
		return imageNeverPull(message), true
	case "InspectFailed", "ImageInspectError":
		if strings.HasPrefix(message, "Failed to apply default image tag ") {
			return imageInvalid(message), true
		}
		// image_manager.go "Failed to inspect image %q: %v"
		if _, rest, ok := rtQuotedAfter(message, "Failed to inspect image "); ok {
			message = strings.TrimPrefix(rest, ": ")
		}
		if cause, _ := imageClassify("", strings.ToLower(message)); cause == InvalidImageName {
			return imagePullError("", message), true
		}
		return Decoded{Cause: ImagePullFailed, Summary: "the runtime could not inspect the image: " + rtOneLine(rtTail(message))}, true
	case "Pulling":
		img, _, found := rtQuotedAfter(message, "Pulling image ")
		if !found {
			// the kubelet's wording before 1.14
			img, _, found = rtQuotedAfter(message, "pulling image ")
		}
		if !found {
			return Decoded{}, false
		}
		return Decoded{Cause: ImagePulling, Progressing: true,
			Summary: fmt.Sprintf("pulling image %q from %s", img, imageHostPhrase(img)),
			Details: imageDetails(img)}, true
	case "Failed":
		if img, rest, found := rtQuotedAfter(message, "Failed to pull image "); found {
			return imagePullError(img, strings.TrimPrefix(rest, ": ")), true
		}
		if name, found := strings.CutPrefix(message, "Error: "); found {
			return imageErrorName(name)
		}
	}
	return Decoded{}, false
}

// imageErrorName decodes the kubelet's bare "Error: <ErrName>" Failed event,
// which names only the error kind (kuberuntime_container.go startContainer).
func imageErrorName(name string) (Decoded, bool) {
	details := []chain.Detail{{Key: "reason", Value: name}}
	switch name {
	case "ErrImagePull", "SignatureValidationFailed", "ImageInspectError":
		return Decoded{Cause: ImagePullFailed, Details: details}, true
	case "ImagePullBackOff":
		return Decoded{Cause: ImagePullFailed, Summary: "the kubelet is backing off pulling an image after failed pulls", Details: details}, true
	case "RegistryUnavailable":
		return Decoded{Cause: RegistryUnreachable, Details: append(details, chain.Detail{Key: "kind", Value: "other"})}, true
	case "ErrImagePullNoSpace":
		return Decoded{Cause: ImagePullNoSpace, Details: details}, true
	case "InvalidImageName":
		return Decoded{Cause: InvalidImageName, Details: details}, true
	case "ErrImageNeverPull":
		return Decoded{Cause: ImageNeverPulled, Details: details}, true
	}
	return Decoded{}, false
}

// imageBackOff decodes "Back-off pulling image %q", which the waiting message
// follows with ": <ErrName>: <previous pull error>" (image_manager.go pullImage).
func imageBackOff(reason, message string) (Decoded, bool) {
	img, rest, found := rtQuotedAfter(message, "Back-off pulling image ")
	if !found {
		if reason == "ImagePullBackOff" {
			return Decoded{Cause: ImagePullFailed, Summary: "the kubelet is backing off pulling the image after failed pulls"}, true
		}
		return Decoded{}, false // a container restart back-off, not an image
	}
	if prev, ok := strings.CutPrefix(rest, ": "); ok {
		for _, name := range []string{"ErrImagePull", "RegistryUnavailable", "SignatureValidationFailed"} {
			if err, ok := strings.CutPrefix(prev, name+": "); ok {
				return imagePullError(img, err), true
			}
		}
		return imagePullError(img, prev), true
	}
	return Decoded{Cause: ImagePullFailed,
		Summary: fmt.Sprintf("the kubelet is backing off pulling image %q after failed pulls", img),
		Details: imageDetails(img)}, true
}

// imageInvalid decodes "Failed to apply default image tag %q: couldn't
// parse image name %q: <reference error>" (image_manager.go, parsers.go).
func imageInvalid(message string) Decoded {
	img, rest, found := rtQuotedAfter(message, "Failed to apply default image tag ")
	if !found {
		return Decoded{Cause: InvalidImageName}
	}
	why := strings.TrimPrefix(rest, ": ")
	if _, after, ok := rtQuotedAfter(why, "couldn't parse image name "); ok {
		why = strings.TrimPrefix(after, ": ")
	}
	return Decoded{Cause: InvalidImageName,
		Summary:  fmt.Sprintf("image name %q is invalid: %s", img, why),
		NextStep: fmt.Sprintf("fix spec.template.spec.containers[].image: %q is not a valid reference ([host[:port]/]lowercase/path[:tag][@sha256:digest])", img),
		Details:  []chain.Detail{{Key: "image", Value: img}, {Key: "error", Value: why}}}
}

func imageNeverPull(message string) Decoded {
	img, _, found := rtQuotedAfter(message, "Container image ")
	if !found {
		return Decoded{Cause: ImageNeverPulled}
	}
	return Decoded{Cause: ImageNeverPulled,
		Summary:  fmt.Sprintf("image %q is not on the node and imagePullPolicy is Never", img),
		NextStep: fmt.Sprintf("load %q onto every node that may run the pod, or set spec.template.spec.containers[].imagePullPolicy to IfNotPresent", img),
		Details:  imageDetails(img)}
}

// imagePullError decodes a pull error as the kubelet passes it on: the CRI's
// gRPC error (containerd: "failed to pull and unpack image %q: ...") or the
// kubelet's own "image pull failed for %s because the registry is unavailable".
func imagePullError(img, message string) Decoded {
	tail := rtTail(message)
	if _, details, ok := strings.Cut(tail, "there are no credentials on this request.  details: ("); ok {
		// dockertools (1.2-1.5): the daemon's error inside the kubelet's
		// guess that credentials are missing; the error decides.
		tail = strings.TrimSuffix(strings.TrimSpace(details), ")")
	}
	if rest, ok := strings.CutPrefix(tail, "image pull failed for "); ok {
		if i := strings.Index(rest, " because "); i >= 0 {
			if img == "" {
				img = rest[:i]
			}
			tail = rest[i+len(" because "):]
		}
	}
	for _, wrapper := range []string{"failed to pull and unpack image ", "failed to resolve reference "} {
		if ref, rest, ok := rtQuotedAfter(tail, wrapper); ok && strings.HasPrefix(rest, ": ") {
			if img == "" {
				img = ref
			}
			tail = rest[2:]
		}
	}
	if m := deniedForRe.FindStringSubmatch(tail); m != nil && img == "" {
		img = m[1]
	}
	if m := manifestForRe.FindStringSubmatch(tail); m != nil && img == "" {
		img = m[1]
	}
	if m := dockerSourceRe.FindStringSubmatch(tail); m != nil && img == "" {
		img = m[1]
	}
	if m := readingManifestRe.FindStringSubmatch(tail); m != nil && img == "" {
		img = m[2] + ":" + m[1]
		if strings.HasPrefix(m[1], "sha256:") {
			img = m[2] + "@" + m[1]
		}
	}
	cause, kind := imageClassify(rtCode(message), strings.ToLower(tail))
	return imageDecoded(cause, kind, img, rtOneLine(tail))
}

// PullAmbiguous says a pull error is Docker's answer for a repository
// that either does not exist or is private to a pull without credentials
// ("pull access denied for NAME, repository does not exist or may require
// 'docker login'"): read as ImageNotFound alone, it yields to an
// unambiguous credentials error about the same container.
func PullAmbiguous(message string) bool {
	return strings.Contains(message, "repository does not exist or may require 'docker login'")
}

// deniedForRe is the repository Docker's daemon names when it refuses a
// pull ("pull access denied for NAME, repository does not exist ..."):
// the image, when the message quotes no other.
var deniedForRe = regexp.MustCompile(`pull access denied for ([^\s,]+),`)

// manifestForRe is the reference Docker's daemon names when the registry
// has no such manifest (moby distribution/errors.go notFoundError:
// "manifest for %s not found: %v"), and readingManifestRe the tag or digest
// and repository CRI-O's containers/image names ("reading manifest %s in
// %s: ..."): the image, when the message quotes no other, as a bare
// runtime error pasted without the kubelet's "Failed to pull image".
// CRI-O's "docker://REF: " source comes first: a manifest list's
// platform entry it reads is a digest the user never wrote.
var (
	dockerSourceRe    = regexp.MustCompile(`docker://(\S+?): `)
	manifestForRe     = regexp.MustCompile(`manifest for (\S+) not found`)
	readingManifestRe = regexp.MustCompile(`reading manifest (\S+) in (\S+?):`)
)

// imageClassify sorts a pull error by the runtime's and the registry's words
// (Docker's daemon, containerd's core/remotes/docker, CRI-O's
// containers/image, Go's net and crypto/tls errors). Order matters: a DNS
// lookup can time out, a TLS handshake can time out, and a 404 for a
// platform is no 404 of the image.
func imageClassify(code, lower string) (chain.CauseID, string) {
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(lower, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("429 too many requests", "toomanyrequests", "rate limit"):
		return ImagePullRateLimited, ""
	case has("no match for platform", "no matching manifest for", "does not match the specified platform",
		"no image found in manifest list for architecture", "no image found in image index for architecture"):
		return ImagePlatformMismatch, ""
	case has("no space left on device"):
		return ImagePullNoSpace, ""
	case has("no such host", "server misbehaving", "temporary failure in name resolution",
		"name or service not known", "no address associated with hostname", "name resolution"),
		has("dial tcp: lookup ") && has("i/o timeout", "timeout"):
		return RegistryHostUnresolved, "dns"
	case has("x509: ", "tls: failed to verify", "certificate signed by unknown authority", "certificate is not valid",
		"certificate has expired", "server gave http response to https client", "certificate verify failed"):
		return RegistryCertificateUntrusted, "tls"
	case has("accept header does not support oci"):
		// The registry holds the tag, as an OCI index or manifest, and
		// answers MANIFEST_UNKNOWN only because the client's Accept
		// header leaves OCI media types out (distribution's
		// "OCI index found, but accept header does not support OCI
		// indexes"): a runtime too old for the image, not a missing tag.
		return ImagePullFailed, "oci-media-type"
	case has("manifest unknown", "manifest_unknown", "was deleted or has expired", "repository does not exist or may require 'docker login'", "not found: manifest", "no such image", "(error: image ") ||
		strings.Contains(lower, "manifest for ") && strings.Contains(lower, " not found"):
		// Docker's "pull access denied ..., repository does not exist or
		// may require 'docker login'" is most often a name that exists
		// nowhere (a typo, an image built locally and never pushed; a
		// private one says "unauthorized" or containerd's
		// "insufficient_scope"); a registry that answered "manifest
		// unknown" to any credential has the repository but not the tag.
		// MANIFEST_UNKNOWN is the distribution API's error code for it,
		// quoted bare by clients that print the code (Artifact Registry's
		// "MANIFEST_UNKNOWN: Failed to fetch"); Quay says a tag it
		// deleted "was deleted or has expired. To pull, revive via time
		// machine".
		return ImageNotFound, ""
	case has("did not resolve to an alias", "short-name"):
		return InvalidImageName, ""
	case has("pull access denied", "failed to authorize", "401 unauthorized", "403 forbidden",
		"authorization failed", "insufficient_scope", "unauthorized: ", "unauthorized", "denied: ", "access denied",
		"no basic auth credentials", "authentication required", "access to the requested resource is not authorized",
		"requested access to the resource is denied", "failed to fetch oauth token", "failed to fetch anonymous token",
		"error getting credentials", "get credentials", "invalid username/password", "auth token", "forbidden") ||
		code == "Unauthenticated" || code == "PermissionDenied":
		return ImagePullUnauthorized, ""
	case has("i/o timeout", "deadline exceeded", "handshake timeout", "timeout awaiting", "client.timeout exceeded",
		"504 gateway timeout", "context canceled", "request canceled", "operation timed out", "connection timed out",
		"timed out", "timeout exceeded") ||
		code == "DeadlineExceeded" || code == "Canceled":
		return ImagePullTimeout, "timeout"
	case has("connection refused"):
		return RegistryUnreachable, "refused"
	case has("connection reset by peer", "no route to host", "network is unreachable", "proxyconnect",
		"502 bad gateway", "503 service unavailable", "500 internal server error", "the registry is unavailable",
		"unexpected eof", ": eof"):
		return RegistryUnreachable, "other"
	case code == "NotFound" || has(": not found", "manifest unknown", "name unknown", "not found: manifest",
		"repository does not exist", "manifest for ", "no such image", "not found") || lower == "not found":
		return ImageNotFound, ""
	}
	return ImagePullFailed, ""
}

// imageDecoded makes a pull cause specific to the image and its registry.
func imageDecoded(cause chain.CauseID, kind, img, tail string) Decoded {
	host := imageHostPhrase(img)
	d := Decoded{Cause: cause, Details: imageDetails(img)}
	switch cause {
	case ImageNotFound:
		d.Summary = fmt.Sprintf("image %q not found in %s", img, host)
		d.NextStep = fmt.Sprintf("check that %q exists with your registry tooling (e.g. crane ls %s), then fix spec.template.spec.containers[].image", img, imageRepository(img))
	case ImagePullUnauthorized:
		d.Summary = fmt.Sprintf("%s refused to serve image %q: missing or wrong credentials, or no such repository (%s)", host, img, tail)
		d.NextStep = fmt.Sprintf("set spec.template.spec.imagePullSecrets to a kubernetes.io/dockerconfigjson Secret with credentials for %s and check it with kubectl get secret NAME -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d; also check the repository name", host)
	case ImagePullRateLimited:
		d.Summary = fmt.Sprintf("%s is rate-limiting pulls of image %q (429 Too Many Requests)", host, img)
		d.NextStep = fmt.Sprintf("authenticate pulls from %s with spec.template.spec.imagePullSecrets, or mirror %q to a registry you control", host, img)
	case ImagePlatformMismatch:
		d.Summary = fmt.Sprintf("image %q has no variant for the node's platform (%s)", img, tail)
		d.NextStep = fmt.Sprintf("push %q for the nodes' platform (docker buildx build --platform linux/amd64,linux/arm64 ...), or pin the pods to matching nodes with nodeSelector kubernetes.io/arch", img)
	case ImagePullNoSpace:
		d.Summary = fmt.Sprintf("the node ran out of disk space pulling image %q (%s)", img, tail)
	case InvalidImageName:
		d.Summary = fmt.Sprintf("image name %q cannot be resolved: %s", img, tail)
		d.NextStep = "use a fully qualified image name (REGISTRY/REPOSITORY:TAG): CRI-O resolves short names only through the node's registries.conf (unqualified-search-registries)"
	case RegistryHostUnresolved, RegistryCertificateUntrusted, ImagePullTimeout, RegistryUnreachable:
		d.Details = append(d.Details, chain.Detail{Key: "kind", Value: kind})
		d.Summary, d.NextStep = registryUnreachable(kind, host, img, tail)
	case ImagePullFailed:
		d.Summary = fmt.Sprintf("pulling image %q failed: %s", img, tail)
		if kind == "oci-media-type" {
			d.Summary = fmt.Sprintf("the registry holds image %q in OCI format, which the node's container runtime does not accept (%s)", img, tail)
			d.NextStep = "upgrade the node's Docker Engine or containerd to a release that pulls OCI images, or push the image with Docker media types"
		}
	}
	return d
}

func registryUnreachable(kind, host, img, tail string) (summary, next string) {
	switch kind {
	case "dns":
		return fmt.Sprintf("the node could not resolve %s to pull image %q (%s)", host, img, tail),
			fmt.Sprintf("check the registry host of spec.template.spec.containers[].image for typos, then that the nodes' DNS resolves %s (nslookup on the node: the runtime uses the node's resolver, not the cluster DNS)", host)
	case "tls":
		return fmt.Sprintf("the node does not trust the TLS certificate of %s pulling image %q (%s)", host, img, tail),
			fmt.Sprintf("add the CA of %s to the container runtime's trust on every node (containerd: /etc/containerd/certs.d/%s/ca.crt; Docker: /etc/docker/certs.d/%s/ca.crt), or fix the registry's certificate", host, host, host)
	case "timeout":
		return fmt.Sprintf("pulling image %q from %s timed out (%s)", img, host, tail),
			fmt.Sprintf("check that the nodes reach %s on port 443 without a filtering firewall or proxy; for a large image raise the kubelet's runtimeRequestTimeout or pre-pull it", host)
	case "refused":
		return fmt.Sprintf("%s refused the connection pulling image %q (%s)", host, img, tail),
			fmt.Sprintf("check that the registry at %s is running and listens on the port in the image reference", host)
	}
	return fmt.Sprintf("%s is unavailable pulling image %q (%s)", host, img, tail),
		fmt.Sprintf("check the health of %s and the nodes' network path to it (firewall, the runtime's HTTP proxy)", host)
}

func imageDetails(img string) []chain.Detail {
	if img == "" {
		return nil
	}
	d := []chain.Detail{{Key: "image", Value: img}}
	if h := imageRegistry(img); h != "" {
		d = append(d, chain.Detail{Key: "registry", Value: h})
	}
	return d
}

// imageRegistry returns the registry host of an image reference, or "" when
// the reference has none and the runtime's default registry applies. It is
// the rule of the reference library's splitDockerDomain: the first path
// component is a host if it has a dot or a port, is localhost, or has
// upper-case letters.
func imageRegistry(ref string) string {
	i := strings.IndexByte(ref, '/')
	if i <= 0 {
		return ""
	}
	first := ref[:i]
	if strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first {
		return first
	}
	return ""
}

func imageHostPhrase(img string) string {
	if h := imageRegistry(img); h != "" {
		return h
	}
	return "the runtime's default registry"
}

// imageRepository strips the tag and digest from a reference.
func imageRepository(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return ref
}
