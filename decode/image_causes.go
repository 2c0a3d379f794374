package decode

import "github.com/kubectl-chain/kubectl-chain/chain"

// Image causes: the kubelet's image manager (pkg/kubelet/images) could not
// make a container's image present on the node, or is still pulling it.
const (
	ImageNotFound         chain.CauseID = "ImageNotFound"
	ImagePullUnauthorized chain.CauseID = "ImagePullUnauthorized"
	RegistryUnreachable   chain.CauseID = "RegistryUnreachable"
	ImagePullRateLimited  chain.CauseID = "ImagePullRateLimited"
	InvalidImageName      chain.CauseID = "InvalidImageName"
	ImageNeverPulled      chain.CauseID = "ImageNeverPulled"
	ImagePullFailed       chain.CauseID = "ImagePullFailed"
	ImagePulling          chain.CauseID = "ImagePulling"
	// The registry could not be reached for a reason the next step
	// depends on: its name, its certificate, the path's speed, the node's disk.
	RegistryHostUnresolved       chain.CauseID = "RegistryHostUnresolved"
	RegistryCertificateUntrusted chain.CauseID = "RegistryCertificateUntrusted"
	ImagePullTimeout             chain.CauseID = "ImagePullTimeout"
	ImagePlatformMismatch        chain.CauseID = "ImagePlatformMismatch"
	ImagePullNoSpace             chain.CauseID = "ImagePullNoSpace"
)

// imageCauses: a failed pull is retried with back-off, so most pull causes
// are judged after repeats; the kubelet has failed a pull twice once it backs
// off, which is enough for answers that will not change (not found, denied).
var imageCauses = []Cause{
	{ID: ImageNotFound, Link: chain.LinkContainers,
		Summary:  "the image's tag or digest does not exist in its registry",
		NextStep: "check the tag with your registry tooling (e.g. crane ls REGISTRY/REPOSITORY), then fix spec.template.spec.containers[].image",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ImagePullUnauthorized, Link: chain.LinkContainers,
		Summary:  "the registry refused the pull: missing or wrong credentials (or the repository does not exist)",
		NextStep: "set spec.template.spec.imagePullSecrets to a kubernetes.io/dockerconfigjson Secret for the registry and check it with kubectl get secret NAME -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: RegistryUnreachable, Link: chain.LinkContainers,
		Summary:  "the node could not connect to the image's registry (connection refused or reset, no route, proxy or registry down)",
		NextStep: "check that the registry in spec.template.spec.containers[].image is up and that the nodes can reach it on port 443 (firewall, the runtime's HTTP proxy)",
		// A registry's outage and its rate limit pass (krane#477): they
		// wait out one more of the kubelet's image back-offs (pulls at
		// about 0, 10, 30 and 70 s), so an outage shorter than a minute
		// never fails the gate; the soak measured both sides.
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 4}},
	{ID: RegistryHostUnresolved, Link: chain.LinkContainers,
		Summary:  "the node could not resolve the image's registry host name (DNS)",
		NextStep: "check the registry host in spec.template.spec.containers[].image for typos, then the nodes' resolver: run nslookup HOST on the node (not in a pod: the runtime uses the node's /etc/resolv.conf)",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}},
	{ID: RegistryCertificateUntrusted, Link: chain.LinkContainers,
		Summary:  "the node does not trust the registry's TLS certificate (unknown authority, wrong host name, expired, or a plain-HTTP registry)",
		NextStep: "add the registry's CA to the container runtime's trust on every node (containerd: /etc/containerd/certs.d/HOST/ca.crt or hosts.toml; Docker: /etc/docker/certs.d/HOST/ca.crt; CRI-O: /etc/containers/certs.d/HOST/), or fix the registry's certificate",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ImagePullTimeout, Link: chain.LinkContainers,
		Summary:  "pulling the image timed out or was cancelled (slow or filtered path to the registry, or a large image)",
		NextStep: "check that the nodes reach the registry on port 443 without a filtering firewall or proxy; for a large image, raise the kubelet's runtimeRequestTimeout or pre-pull it",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}},
	{ID: ImagePlatformMismatch, Link: chain.LinkContainers,
		Summary:  "the image has no variant for the node's OS and architecture",
		NextStep: "push the image for the nodes' platform (docker buildx build --platform linux/amd64,linux/arm64 ...), or pin the pods to matching nodes with nodeSelector kubernetes.io/arch",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ImagePullNoSpace, Link: chain.LinkContainers,
		Summary:  "the node ran out of disk space while pulling or unpacking the image",
		NextStep: "free the node's image filesystem (crictl rmi --prune on the node, or check the kubelet's image garbage collection) or use a smaller image; kubectl describe node shows DiskPressure",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 2}},
	{ID: ImagePullRateLimited, Link: chain.LinkContainers,
		Summary:  "the registry is rate-limiting pulls (429 Too Many Requests)",
		NextStep: "authenticate pulls with spec.template.spec.imagePullSecrets, or mirror the image to a registry you control",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 4}},
	{ID: InvalidImageName, Link: chain.LinkContainers,
		Summary:  "the image reference cannot be parsed",
		NextStep: "fix spec.template.spec.containers[].image: [host[:port]/]lowercase/path[:tag][@sha256:digest]",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ImageNeverPulled, Link: chain.LinkContainers,
		Summary:  "imagePullPolicy is Never and the image is not on the node",
		NextStep: "load the image onto every node that may run the pod, or set spec.template.spec.containers[].imagePullPolicy to IfNotPresent",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ImagePullFailed, Link: chain.LinkContainers,
		Summary:  "the image pull failed",
		NextStep: "read the kubelet's Failed event (kubectl describe pod {POD}), fix the image or the registry, and wait for the next pull",
		Terminal: TerminalRule{Mode: AfterRepeats, Repeats: 3}, Generic: true},
	{ID: ImagePulling, Link: chain.LinkContainers,
		Summary:  "the kubelet is pulling the image",
		NextStep: "wait for the pull; a large image on a slow link can take minutes",
		Terminal: TerminalRule{Mode: Transient}},
}
