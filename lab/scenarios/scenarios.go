// Package scenarios is the lab's catalogue of reproducible rollouts: each one
// a workload (and what it needs) that breaks one link of its chain in one
// way, with the verdict kubectl chain must give for it. The manifests are
// embedded; `kubectl chain lab apply NAME` creates them, and the end-to-end
// tests check every verdict against the real control plane.
package scenarios

import (
	"embed"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/kubelet"
)

//go:embed manifests/*.yaml
var manifests embed.FS

// Deployment is the name of every scenario's workload, whatever its kind.
const Deployment = "web"

// LabImage is the image of the scenarios' healthy containers, in the lab's
// image catalogue; a kind lab replaces it (Options.Images).
const LabImage = "registry.lab.internal/web:v1"

// Scenario is one reproducible rollout and the verdict it must get.
type Scenario struct {
	Name    string
	Summary string
	// Kind is the kind of the scenario's workload web; empty is a
	// Deployment.
	Kind chain.Kind
	// Health, Link and Cause are the expected verdict; Link and Cause are
	// empty for a healthy rollout.
	Health chain.Health
	Link   chain.LinkID
	Cause  chain.CauseID
	// Deadline is how long the verdict may take to settle after apply.
	Deadline time.Duration
	// TaintNodes, when set, is put on every node: the scenario changes the
	// whole lab, so it is applied alone (Exclusive); so is one that holds
	// the nodes' image pullers.
	TaintNodes *corev1.Taint
	Exclusive  bool
	// StopKubelet, once the workload's pods are ready, stops the
	// simulated kubelet of the nodes they run on (StopKubelets): the node
	// lifecycle controller marks those nodes Unknown after its grace.
	// Delete starts them again. The scenario is Exclusive.
	StopKubelet bool
	// LabOnly, when set, says why the scenario reproduces only on the
	// simulated kubelet (an annotation or image of the lab's catalogue that
	// a real kubelet does not honour); `apply` refuses it on a kind lab.
	LabOnly string
	// NotOnRealNode, when set, says why the scenario is not played on the
	// lab's real nodes (up --real-nodes); see RealNodeReason.
	NotOnRealNode string
	// Then, when set, says what the scenario's second step changes: the
	// workload of NAME.then.yaml (a Deployment, StatefulSet, DaemonSet or
	// Rollout) replaces the first one's template once
	// the first has a pod, or with ThenWhenReady once all its pods are
	// ready at one revision.
	Then          string
	ThenWhenReady bool
	// Changed, for a scenario whose second step breaks a revision that ran
	// ready, are the pod template fields the report's change names, and
	// the rollback it suggests.
	Changed []string
	// Later, when set, makes a fault that heals: Later after the first
	// step, ApplyLater creates the objects of NAME.later.yaml (or puts its
	// webhook configurations in place of the first step's). Heals names
	// the fault's terminal twin: the scenario without the later step.
	Later time.Duration
	Heals string
	// Traffic is a scenario whose statuses only an Ingress or Gateway
	// controller writes: it is played on a lab with the traffic
	// controller (up --traffic-controller), and refused on one without.
	Traffic bool
	// Rollouts is a scenario of Argo Rollouts' kinds, whose statuses only
	// its controller writes: it is played on a lab that runs it (up
	// --rollouts-controller), and refused on one that does not serve
	// them.
	Rollouts bool
}

// KindOf is the scenario's workload kind.
func (s Scenario) KindOf() chain.Kind {
	if s.Kind == "" {
		return chain.KindDeployment
	}
	return s.Kind
}

// Target is what kubectl chain is asked about the scenario: "deployment/web".
func (s Scenario) Target() string { return chain.Ref{Kind: s.KindOf(), Name: Deployment}.String() }

// Engines that play a scenario, as `kubectl chain lab scenarios` lists
// them: lab (the simulated kubelet), real (the lab's real nodes), kind.
const (
	EngineLab  = "lab"
	EngineReal = "real"
	EngineKind = "kind"
)

// Engines are the engines that play the scenario.
func (s Scenario) Engines() []string {
	out := []string{EngineLab}
	if s.RealNodeReason() == "" {
		out = append(out, EngineReal)
	}
	if s.LabOnly == "" {
		out = append(out, EngineKind)
	}
	return out
}

// RealNodeReason says why the scenario is not played on a real node, ""
// when it is: a scenario that breaks before a node is chosen is the same
// whatever the nodes run, so only the kubelet's links are compared.
func (s Scenario) RealNodeReason() string {
	if s.NotOnRealNode != "" {
		return s.NotOnRealNode
	}
	switch s.Link {
	case chain.LinkStored, chain.LinkReplicaSet, chain.LinkRevision, chain.LinkNodes, chain.LinkSchedule,
		chain.LinkPods, chain.LinkClaims, chain.LinkNodeAssignment:
		return notOnNode
	}
	return ""
}

// Manifest is the scenario's YAML: a stream of documents, namespaced objects
// without namespace, and at most one Namespace whose labels the target
// namespace gets.
func (s Scenario) Manifest() ([]byte, error) {
	return manifests.ReadFile("manifests/" + s.Name + ".yaml")
}

// stepNames say which step a manifest's error is about.
var stepNames = map[string]string{"then": "second step", "later": "later step"}

// stepObjects are the objects of one step of the scenario (NAME.yaml, or
// NAME.STEP.yaml for "then" and "later"), decoded, localized to ns and
// pinned to o.Engine's nodes.
func stepObjects(s Scenario, step, ns string, o Options) ([]runtime.Object, error) {
	file, what := s.Name+".yaml", ""
	if step != "" {
		file, what = s.Name+"."+step+".yaml", ", "+stepNames[step]
	}
	raw, err := manifests.ReadFile("manifests/" + file)
	if err != nil {
		return nil, err
	}
	objs, err := Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("scenario %s%s: %w", s.Name, what, err)
	}
	localize(objs, ns, o.Images)
	if o.Engine != "" {
		pin(objs, o.Engine)
	}
	return objs, nil
}

// taintKey is the taint of untolerated-taint.
const taintKey = kubelet.AnnotationPrefix + "dedicated"

const defaultDeadline = 60 * time.Second

// Why a scenario is LabOnly.
const (
	labHandler          = "its runtime handler cni-missing is configured on the lab's nodes only"
	labImages           = "its failure comes from the lab's image catalogue (registry.lab.internal), which a real node cannot reach at all"
	labProgram          = "its failure is asked of the lab's chain-workload program by its arguments, and a kind lab replaces the lab's image with a pause image"
	labExec             = "its probe command runs in the lab's image, which a kind lab replaces with the pause image (no shell, no cat)"
	labTraffic          = "its statuses are written by the lab's traffic controller (up --traffic-controller), which a kind lab does not run"
	labOperator         = "its Shop is served by the lab's own operator (lab-operator), which a kind lab does not run"
	labCertManager      = "its cert-manager statuses are written by the scenario on the CRDs the lab's own control plane installs, which a kind lab does not"
	sameAsMountSecret   = "its pods are mount-secret-missing's to the kubelet (a Secret volume that does not exist), which the comparison already plays"
	labRollouts         = "its Rollout is served by Argo Rollouts' controller (up --rollouts-controller), which a kind lab does not run"
	notRollout          = "it breaks at the Rollouts controller's own link, the same whatever the nodes run"
	labOutage           = "its registry outage or slow pull is the lab registry's (an outage/ or slow/ repository path), which a kind lab does not run"
	labKubeletStop      = "its node's kubelet is stopped through the simulated kubelet's annotation, which a kind node's kubelet does not read"
	labWebhook          = "its webhook is served by the lab's admission-webhook component, which a kind lab does not run"
	notOnNode           = "it breaks before a node is chosen, the same whatever the nodes run"
	notKubelet          = "it breaks past the pods, at a Service, the same whatever the nodes run"
	simExec             = "its probe runs cat in the image, and the lab's images hold only the chain-workload program"
	zoneSelector        = "its nodeSelector names a zone, and the comparison pins each copy to one engine's node, which may be in another zone"
	sameAsHealthy       = "its pods are the healthy scenario's to the kubelet, which the comparison already plays"
	sameAsImageNotFound = "its pods are image-not-found's to the kubelet, which the comparison already plays"
	sameAsBackoffLimit  = "its pods are job-backoff-limit's to the kubelet (a container that exits, a pod that ends Failed), which the comparison already plays"
	sameAsConfigKey     = "its pods are configmap-key-missing's to the kubelet, which the comparison already plays"
	sameAsCrashloop     = "its pods are crashloop's to the kubelet, which the comparison already plays"
	onTheMinute         = "its runs start on the minute, which would hold the comparison a minute or two; the kubelet's part is that of the job-* scenarios"
)

// all is the catalogue: the Deployments' in the chain's order, then each
// other kind's.
var all = []Scenario{
	{Name: "healthy", Summary: "3 replicas that pull, start and turn ready", Health: chain.Healthy},
	{Name: "pvc-bound", Summary: "a pod mounting a claim on the default StorageClass, provisioned and bound", Health: chain.Healthy},
	// The lab serves no metrics API: the autoscaler controller says so
	// in its own words; the Deployment is healthy, noted.
	{Name: "rollout-paused-step", Kind: chain.KindRollout, Summary: "rollout/web, an Argo Rollouts canary: its second revision stops at its pause step ({}) until someone promotes it",
		Health: chain.Broken, Link: chain.LinkRollout, Cause: "RolloutPaused", Then: "a second revision (a new template annotation) once the first is Healthy", ThenWhenReady: true,
		Rollouts: true, LabOnly: labRollouts, NotOnRealNode: notRollout},
	{Name: "rollout-analysis-aborted", Kind: chain.KindRollout, Summary: "rollout/web, an Argo Rollouts canary whose step analysis runs a Job that exits 1: the controller aborts its second revision",
		Health: chain.Broken, Link: chain.LinkRollout, Cause: "RolloutAborted", Then: "a second revision (a new template annotation) once the first is Healthy", ThenWhenReady: true,
		Rollouts: true, LabOnly: labRollouts, NotOnRealNode: notRollout},
	{Name: "hpa-no-metrics", Summary: "a healthy Deployment whose HorizontalPodAutoscaler finds no metrics API (no metrics-server)", Health: chain.Healthy, NotOnRealNode: sameAsHealthy},
	{Name: "paused", Summary: "a Deployment created paused", Health: chain.Broken, Link: chain.LinkStored, Cause: "DeploymentPaused"},
	{Name: "quota-exceeded", Summary: "a ResourceQuota of 200m cpu, pods of 250m each", Health: chain.Broken, Link: chain.LinkPods, Cause: "QuotaExceeded"},
	{Name: "podsecurity-restricted", Summary: "a namespace enforcing the restricted Pod Security Standard, pods that do not comply", Health: chain.Broken, Link: chain.LinkPods, Cause: "PodSecurityRejected"},
	{Name: "limitrange-exceeded", Summary: "a LimitRange of 1 cpu per container, a container limited to 2", Health: chain.Broken, Link: chain.LinkPods, Cause: "LimitRangeViolation"},
	{Name: "quota-requires-limits", Summary: "a ResourceQuota on limits.cpu and limits.memory, pods without limits", Health: chain.Broken, Link: chain.LinkPods, Cause: "QuotaRequiresResources"},
	{Name: "serviceaccount-missing", Summary: "serviceAccountName web-runner, which does not exist", Health: chain.Broken, Link: chain.LinkPods, Cause: "ServiceAccountNotFound"},
	{Name: "admission-policy-denied", Summary: "a ValidatingAdmissionPolicy requiring a label the pods lack", Health: chain.Broken, Link: chain.LinkPods, Cause: "AdmissionPolicyDenied"},
	{Name: "webhook-denied", Summary: "a validating webhook, served by the lab, that denies pods without the label team", Health: chain.Broken, Link: chain.LinkPods, Cause: "WebhookDenied", LabOnly: labWebhook},
	{Name: "webhook-unavailable", Summary: "a validating webhook with failurePolicy Fail whose Service policy-webhook does not exist", Health: chain.Broken, Link: chain.LinkPods, Cause: "WebhookUnavailable"},
	{Name: "webhook-late", Summary: "webhook-unavailable's webhook for 15 s, then pointed at the lab's webhook server, which admits the pods: healthy once the ReplicaSet controller retries",
		Health: chain.Healthy, Later: 15 * time.Second, Heals: "webhook-unavailable", LabOnly: labWebhook, Deadline: 90 * time.Second},
	{Name: "update-image-not-found", Summary: "ready at revision 1, then an image tag the registry does not have: revision 2 breaks, revision 1 keeps serving, the report names the image as what changed and the rollback", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNotFound",
		Then: "an image tag that does not exist, once revision 1 is ready", ThenWhenReady: true, Changed: []string{"containers[web].image"}, LabOnly: labImages, NotOnRealNode: sameAsImageNotFound},
	{Name: "node-not-ready", Summary: "a ready pod whose node's kubelet stops: after the node lifecycle controller's 50 s grace the node is Unknown (Kubelet stopped posting node status) and the pod not ready; the node is named, progressing until the pods' 300 s toleration ends", Health: chain.Progressing, Link: chain.LinkNodeAssignment, Cause: "NodeNotReady",
		StopKubelet: true, Exclusive: true, Deadline: 2 * time.Minute, LabOnly: labKubeletStop},
	{Name: "insufficient-cpu", Summary: "pods requesting 64 cpus", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "InsufficientCPU"},
	{Name: "untolerated-taint", Summary: "every node tainted " + taintKey + "=scenario:NoSchedule, pods without the toleration", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "UntoleratedTaint",
		TaintNodes: &corev1.Taint{Key: taintKey, Value: "scenario", Effect: corev1.TaintEffectNoSchedule}, Exclusive: true},
	{Name: "node-selector-mismatch", Summary: "a nodeSelector disktype=ssd no node has", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "NodeAffinityMismatch"},
	{Name: "pod-anti-affinity", Summary: "4 replicas that refuse to share a zone, 3 zones", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "PodAntiAffinityConflict"},
	{Name: "topology-spread", Summary: "4 replicas spread over zones with maxSkew 1 and minDomains 5, 3 zones", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "TopologySpreadUnsatisfied"},
	{Name: "pvc-missing", Summary: "a volume from PersistentVolumeClaim web-data, which does not exist", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "PVCNotFound"},
	{Name: "operator-claim-refused", Kind: "Shop", Summary: "shop/web, the lab operator's custom resource: its db StatefulSet's claim is refused by the provisioner (5Gi on a class capped at 1Gi); the cause is one link down, in what it owns",
		Health: chain.Broken, Link: chain.LinkOwned, Cause: "ClaimProvisioningFailed", LabOnly: labOperator, NotOnRealNode: notOnNode},
	{Name: "pvc-provisioning-failed", Summary: "a 5Gi claim on a StorageClass capped at 1Gi: the provisioner refuses it, the claim stays Pending; the pods' cause is the claim's", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "ClaimProvisioningFailed"},
	{Name: "pvc-class-missing", Summary: "a claim naming StorageClass fast-ssd, which does not exist: the PersistentVolume controller cannot provision it; the pods' cause is the claim's", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "ClaimStorageClassNotFound"},
	{Name: "image-not-found", Summary: "image registry.lab.internal/web:does-not-exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNotFound", LabOnly: labImages},
	{Name: "image-pull-secret-missing", Summary: "a private image whose imagePullSecrets names regcred, a Secret that does not exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImagePullSecretNotFound", LabOnly: labImages},
	{Name: "image-unauthorized", Summary: "a private image without imagePullSecrets", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImagePullUnauthorized", LabOnly: labImages},
	{Name: "image-wrong-platform", Summary: "image registry.lab.internal/web:arm64-only, built for linux/arm64 only", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImagePlatformMismatch", LabOnly: labImages},
	{Name: "registry-unreachable", Summary: "an image on a registry host that does not resolve", Health: chain.Broken, Link: chain.LinkContainers, Cause: "RegistryHostUnresolved"},
	{Name: "registry-untrusted", Summary: "an image on a registry whose certificate the node does not trust", Health: chain.Broken, Link: chain.LinkContainers, Cause: "RegistryCertificateUntrusted", LabOnly: labImages},
	{Name: "pull-stalled", Summary: "an image on a registry that accepts connections and never answers", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImagePullTimeout", LabOnly: labImages,
		// Each try holds the node's serialized image puller for the 10 s
		// of a TLS handshake timeout, delaying every other pod's pull.
		Exclusive: true},
	{Name: "invalid-image-name", Summary: "an image reference with upper-case letters", Health: chain.Broken, Link: chain.LinkContainers, Cause: "InvalidImageName"},
	{Name: "image-never-pulled", Summary: "imagePullPolicy Never with an image no node holds", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNeverPulled"},
	{Name: "configmap-missing", Summary: "envFrom ConfigMap web-config, which does not exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ConfigMapNotFound"},
	{Name: "pull-slow-heals", Summary: "an image pull that takes 30 s (the lab's registry paces the layer): the container is being created, then runs; pull-stalled is the pull that never ends", Health: chain.Healthy,
		// The pull holds the node's serialized image puller for 30 s,
		// delaying every other pod's pull.
		Deadline: 90 * time.Second, LabOnly: labOutage, Exclusive: true},
	{Name: "registry-500", Summary: "the lab's registry answers every pull of the image 500 Internal Server Error, for ever", Health: chain.Broken, Link: chain.LinkContainers, Cause: "RegistryUnreachable", LabOnly: labOutage},
	{Name: "registry-500-heals", Summary: "the lab's registry answers 500 for 20 s, then serves the image: the kubelet's pull after its back-off works", Health: chain.Healthy,
		Later: 20 * time.Second, Heals: "registry-500", Deadline: 90 * time.Second, LabOnly: labOutage},
	{Name: "registry-503", Summary: "the lab's registry answers every pull of the image 503 Service Unavailable, for ever", Health: chain.Broken, Link: chain.LinkContainers, Cause: "RegistryUnreachable", LabOnly: labOutage},
	{Name: "registry-503-heals", Summary: "the lab's registry answers 503 for 20 s, then serves the image: the kubelet's pull after its back-off works", Health: chain.Healthy,
		Later: 20 * time.Second, Heals: "registry-503", Deadline: 90 * time.Second, LabOnly: labOutage},
	{Name: "registry-503-long-heals", Summary: "the lab's registry answers 503 for 45 s, then serves the image: three pulls fail, the fourth (after the kubelet's back-off, at about 70 s) works", Health: chain.Healthy,
		Later: 45 * time.Second, Heals: "registry-503", Deadline: 2 * time.Minute, LabOnly: labOutage},
	{Name: "registry-429", Summary: "the lab's registry answers every pull of the image 429 Too Many Requests, for ever", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImagePullRateLimited", LabOnly: labOutage},
	{Name: "registry-429-heals", Summary: "the lab's registry answers 429 for 20 s, then serves the image: the kubelet's pull after its back-off works", Health: chain.Healthy,
		Later: 20 * time.Second, Heals: "registry-429", Deadline: 90 * time.Second, LabOnly: labOutage},
	{Name: "configmap-late", Summary: "configmap-missing's ConfigMap web-config, created 20 s after the Deployment: healthy once the kubelet retries",
		Health: chain.Healthy, Later: 20 * time.Second, Heals: "configmap-missing", Deadline: 90 * time.Second},
	{Name: "secret-missing", Summary: "an env var from Secret db-credentials, which does not exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "SecretNotFound"},
	{Name: "configmap-key-missing", Summary: "an env var from key DATABASE_URL, which ConfigMap web-config lacks", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ConfigKeyNotFound"},
	{Name: "mount-configmap-missing", Summary: "a volume from ConfigMap web-config, which does not exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "VolumeConfigMapNotFound"},
	{Name: "mount-secret-missing", Summary: "a volume from Secret web-tls, which does not exist", Health: chain.Broken, Link: chain.LinkContainers, Cause: "VolumeSecretNotFound"},
	{Name: "secret-late", Summary: "mount-secret-missing's Secret web-tls, created 20 s after the Deployment: healthy once the kubelet mounts it",
		Health: chain.Healthy, Later: 20 * time.Second, Heals: "mount-secret-missing", Deadline: 2 * time.Minute},
	{Name: "certificate-issuer-missing", Summary: "a volume from Secret web-tls, which cert-manager's Certificate web-tls never writes: its issuerRef names Issuer letsencrypt-prod, which does not exist (statuses from real captures; the lab runs no cert-manager)",
		Health: chain.Broken, Link: chain.LinkContainers, Cause: "CertificateIssuerNotFound", LabOnly: labCertManager, NotOnRealNode: sameAsMountSecret},
	{Name: "sandbox-failing", Summary: "pods of RuntimeClass cni-missing, whose CNI network names a plugin (flannel) the nodes lack", Health: chain.Broken, Link: chain.LinkContainers, Cause: "CNINotReady", LabOnly: labHandler},
	{Name: "runtime-handler-missing", Summary: "pods of RuntimeClass gvisor, whose handler runsc no node's runtime has", Health: chain.Broken, Link: chain.LinkContainers, Cause: "RuntimeHandlerMissing"},
	{Name: "entrypoint-missing", Summary: "image registry.lab.internal/web:no-entrypoint, whose entrypoint is not in it", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ExecutableNotFound", LabOnly: labImages},
	{Name: "crashloop", Summary: "a container that exits 1 after a second", Health: chain.Broken, Link: chain.LinkContainers, Cause: "CrashLoopBackOff", LabOnly: labProgram},
	{Name: "seccomp-profile-missing", Summary: "a Localhost seccomp profile (profiles/lab-audit.json) no node has: the runtime cannot create the container", Health: chain.Broken, Link: chain.LinkContainers, Cause: "SeccompProfileNotFound"},
	{Name: "sidecar-crashloop", Summary: "a native sidecar (init container, restartPolicy Always) that exits 1 after a second, beside a healthy container", Health: chain.Broken, Link: chain.LinkContainers, Cause: "CrashLoopBackOff", LabOnly: labProgram},
	{Name: "container-completed", Summary: "a container that exits 0 after a second, restarted as restartPolicy Always wants", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ContainerCompleted", LabOnly: labProgram},
	{Name: "oomkilled", Summary: "a container allocating 64Mi a second with a 128Mi limit", Health: chain.Broken, Link: chain.LinkContainers, Cause: "OOMKilled", LabOnly: labProgram},
	{Name: "init-container-failing", Summary: "an init container that exits 1", Health: chain.Broken, Link: chain.LinkContainers, Cause: "InitContainerFailed", LabOnly: labProgram},
	{Name: "poststart-hook-failing", Summary: "a postStart exec hook whose command exits 1", Health: chain.Broken, Link: chain.LinkContainers, Cause: "PostStartHookFailed", LabOnly: labProgram},
	{Name: "ephemeral-storage-exceeded", Summary: "a container writing 32Mi to its writable layer with an ephemeral-storage limit of 16Mi, evicted", Health: chain.Broken, Link: chain.LinkContainers, Cause: "EphemeralStorageLimitExceeded", LabOnly: labProgram},
	{Name: "liveness-failing", Summary: "a liveness probe answering 503", Health: chain.Broken, Link: chain.LinkContainers, Cause: "LivenessProbeFailed", LabOnly: labProgram},
	{Name: "liveness-exec-failing", Summary: "an exec liveness probe (cat /tmp/healthy) whose command fails", Health: chain.Broken, Link: chain.LinkContainers, Cause: "LivenessProbeFailed", LabOnly: labExec, NotOnRealNode: simExec},
	{Name: "ready-after-delay", Summary: "a readiness probe that answers 503 for the program's first 40 s, then 200: ready, and healthy, after 40 s",
		Health: chain.Healthy, Deadline: 100 * time.Second, LabOnly: labProgram},
	{Name: "start-delay", Summary: "a program that sleeps 30 s before it listens: its readiness probe is refused until then, then passes: healthy after 30 s",
		Health: chain.Healthy, Deadline: 100 * time.Second, LabOnly: labProgram},
	{Name: "readiness-failing", Summary: "a readiness probe answering 503", Health: chain.Broken, Link: chain.LinkReady, Cause: "ReadinessProbeFailed", LabOnly: labProgram},
	{Name: "readiness-tcp-failing", Summary: "a TCP readiness probe on port 5432, where nothing listens", Health: chain.Broken, Link: chain.LinkReady, Cause: "ReadinessProbeFailed"},
	{Name: "readiness-wrong-port", Summary: "an HTTP readiness probe on port 8081, where the program (serving on 8080) does not listen: refused for as long as the pods run", Health: chain.Broken, Link: chain.LinkReady, Cause: "ReadinessProbeFailed"},
	{Name: "svc-selector-mismatch", Summary: "ready pods labelled app=web, and their Service web selecting app=webapp", Health: chain.Broken, Link: chain.LinkServing, Cause: "ServiceSelectorMismatch", NotOnRealNode: notKubelet},
	{Name: "svc-target-port-missing", Summary: "a Service whose targetPort http names no port of the pods (theirs is named web)", Health: chain.Broken, Link: chain.LinkServing, Cause: "ServiceTargetPortNotFound", NotOnRealNode: notKubelet},
	{Name: "svc-target-port-not-listening", Summary: "a Service sending to port 80, which no container declares, while the pods declare 8080 and pass their readiness probe there", Health: chain.Broken, Link: chain.LinkServing, Cause: "ServiceTargetPortNotListening", NotOnRealNode: notKubelet},
	{Name: "svc-no-ready-endpoint", Kind: chain.KindService, Summary: "svc/web asked about: its Deployment's image does not exist, so no pod it selects is ready", Health: chain.Broken, Link: chain.LinkWorkloads, Cause: "ImageNotFound", LabOnly: labImages, NotOnRealNode: sameAsImageNotFound},
	{Name: "ing-class-no-controller", Kind: chain.KindIngress, Summary: "ing/web of an IngressClass whose controller runs nowhere: no address, no event, ever", Health: chain.Broken, Link: chain.LinkClass, Cause: "IngressClassNoController", NotOnRealNode: notKubelet},
	{Name: "httproute-class-no-controller", Kind: chain.KindHTTPRoute, Summary: "httproute/web under a Gateway whose GatewayClass's controller runs nowhere: every status stays the CRDs' default, Waiting for controller", Health: chain.Broken, Link: chain.LinkClass, Cause: "GatewayClassNoController", NotOnRealNode: notKubelet},
	{Name: "ing-backend-missing", Kind: chain.KindIngress, Summary: "ing/web, to which the lab's Traefik gives an address, sending to Service web-frontend, which does not exist", Health: chain.Broken, Link: chain.LinkBackends, Cause: "IngressBackendNotFound", Traffic: true, LabOnly: labTraffic, NotOnRealNode: notKubelet},
	{Name: "httproute-backend-missing", Kind: chain.KindHTTPRoute, Summary: "httproute/web, accepted by the lab's Traefik, sending to Service web-frontend, which does not exist: ResolvedRefs False, BackendNotFound", Health: chain.Broken, Link: chain.LinkBackends, Cause: "RouteBackendNotFound", Traffic: true, LabOnly: labTraffic, NotOnRealNode: notKubelet},
	{Name: "httproute-parent-missing", Kind: chain.KindHTTPRoute, Summary: "httproute/web whose parentRef names Gateway edge, which does not exist", Health: chain.Broken, Link: chain.LinkParents, Cause: "RouteParentNotFound", NotOnRealNode: notKubelet},
	{Name: "svc-lb-no-controller", Summary: "a Service of type LoadBalancer on a cluster with no load-balancer controller: no address, ever", Health: chain.Broken, Link: chain.LinkServing, Cause: "LoadBalancerNoController", NotOnRealNode: notKubelet,
		// Progress for the walk's 30 s grace, then a failure.
		Deadline: 90 * time.Second},

	{Name: "sts-healthy", Kind: chain.KindStatefulSet, Summary: "3 ordinals, each with a claim of the default StorageClass, created in order and ready", Health: chain.Healthy, NotOnRealNode: sameAsHealthy},
	{Name: "sts-claim-class-missing", Kind: chain.KindStatefulSet, Summary: "volumeClaimTemplates on StorageClass fast-ssd, which does not exist: the claim stays Pending",
		Health: chain.Broken, Link: chain.LinkClaims, Cause: "ClaimStorageClassNotFound"},
	{Name: "sts-partitioned", Kind: chain.KindStatefulSet, Summary: "3 ready ordinals, then a new template with partition 2: only web-2 moves to it", Health: chain.Healthy,
		Then: "a new template, partition 2", ThenWhenReady: true, Deadline: 2 * time.Minute, NotOnRealNode: sameAsHealthy},
	{Name: "sts-rollback-trap", Kind: chain.KindStatefulSet, Summary: "a revision whose image does not exist, then the template rolled back: web-0 stays broken, never replaced", Health: chain.Broken, Link: chain.LinkRevision, Cause: "StatefulSetRollbackTrap", LabOnly: labImages,
		Then: "the template rolled back to an image that exists"},
	{Name: "sts-update-configmap-key", Kind: chain.KindStatefulSet, Summary: "2 ready ordinals, then a template whose env variable comes from a key ConfigMap web-config lacks: web-1 cannot start, the report names the env variable as what changed", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ConfigKeyNotFound",
		Then: "LOG_LEVEL from a key the ConfigMap lacks, once both ordinals are ready", ThenWhenReady: true, Changed: []string{"containers[web].env[LOG_LEVEL]"}, Deadline: 2 * time.Minute, NotOnRealNode: sameAsConfigKey},
	{Name: "sts-claim-provisioning-failed", Kind: chain.KindStatefulSet, Summary: "volumeClaimTemplates of 5Gi on a StorageClass capped at 1Gi: the provisioner refuses each claim", Health: chain.Broken, Link: chain.LinkClaims, Cause: "ClaimProvisioningFailed"},
	{Name: "sts-image-not-found", Kind: chain.KindStatefulSet, Summary: "OrderedReady, web-0's image does not exist: web-1 and web-2 are never created", Health: chain.Broken, Link: chain.LinkContainers, Cause: "ImageNotFound", LabOnly: labImages, NotOnRealNode: sameAsImageNotFound},
	{Name: "sts-headless-service-missing", Kind: chain.KindStatefulSet, Summary: "ready ordinals whose spec.serviceName web-headless names no Service", Health: chain.Broken, Link: chain.LinkServing, Cause: "HeadlessServiceMissing", NotOnRealNode: notKubelet},
	{Name: "ds-healthy", Kind: chain.KindDaemonSet, Summary: "a pod on every node, each ready", Health: chain.Healthy, NotOnRealNode: sameAsHealthy},
	{Name: "ds-one-zone", Kind: chain.KindDaemonSet, Summary: "a nodeSelector on zone lab-zone-a: the other zones' nodes are skipped on purpose", Health: chain.Healthy, NotOnRealNode: zoneSelector},
	{Name: "ds-taint-not-tolerated", Kind: chain.KindDaemonSet, Summary: "a nodeSelector on zone lab-zone-a, every node tainted " + taintKey + "=scenario:NoSchedule, no toleration: the nodes it selects run nothing",
		Health: chain.Broken, Link: chain.LinkNodes, Cause: "DaemonSetTaintNotTolerated",
		TaintNodes: &corev1.Taint{Key: taintKey, Value: "scenario", Effect: corev1.TaintEffectNoSchedule}, Exclusive: true},
	{Name: "ds-no-eligible-nodes", Kind: chain.KindDaemonSet, Summary: "a nodeSelector disktype=ssd no node has: it runs nowhere", Health: chain.Broken, Link: chain.LinkNodes, Cause: "NoEligibleNodes"},
	{Name: "ds-crashloop", Kind: chain.KindDaemonSet, Summary: "a revision whose container exits 1 after a second, on every node", Health: chain.Broken, Link: chain.LinkContainers, Cause: "CrashLoopBackOff", LabOnly: labProgram, NotOnRealNode: sameAsCrashloop},
	{Name: "ds-update-requests", Kind: chain.KindDaemonSet, Summary: "ready on every node, then a template requesting 64 cpus: the replaced pod cannot be scheduled, the report names the resources as what changed", Health: chain.Broken, Link: chain.LinkNodeAssignment, Cause: "InsufficientCPU",
		Then: "64 cpus requested, once every node runs a ready pod", ThenWhenReady: true, Changed: []string{"containers[web].resources"}, Deadline: 2 * time.Minute},
	{Name: "job-complete", Kind: chain.KindJob, Summary: "2 completions, 2 at a time, each pod exiting 0", Health: chain.Healthy, LabOnly: labProgram},
	{Name: "job-suspended", Kind: chain.KindJob, Summary: "a Job created suspended", Health: chain.Broken, Link: chain.LinkStored, Cause: "JobSuspended"},
	{Name: "job-backoff-limit", Kind: chain.KindJob, Summary: "every pod exits 3, backoffLimit 1", Health: chain.Broken, Link: chain.LinkCompletion, Cause: "BackoffLimitExceeded", LabOnly: labProgram,
		// Two pods in turn, with the Job controller's back-off between:
		// on a real node of a busy machine the second one's sandbox has
		// taken past a minute to start.
		Deadline: 2 * time.Minute},
	{Name: "job-apparmor-not-enabled", Kind: chain.KindJob, Summary: "a Localhost AppArmor profile on nodes whose host has no AppArmor: the kubelet rejects each pod, backoffLimit 1", Health: chain.Broken, Link: chain.LinkCompletion, Cause: "AppArmorProfileNotLoaded", Deadline: 2 * time.Minute},
	{Name: "job-deadline", Kind: chain.KindJob, Summary: "a pod that runs on, activeDeadlineSeconds 5", Health: chain.Broken, Link: chain.LinkCompletion, Cause: "JobDeadlineExceeded", NotOnRealNode: sameAsBackoffLimit},
	{Name: "job-pod-failure-policy", Kind: chain.KindJob, Summary: "a pod exiting 42, which a FailJob rule of podFailurePolicy matches", Health: chain.Broken, Link: chain.LinkCompletion, Cause: "PodFailurePolicyMatched", LabOnly: labProgram, NotOnRealNode: sameAsBackoffLimit},
	{Name: "cj-healthy", Kind: chain.KindCronJob, Summary: "every minute, a Job whose pod exits 0", Health: chain.Healthy, LabOnly: labProgram, NotOnRealNode: onTheMinute, Deadline: 100 * time.Second},
	{Name: "cj-missed-starts", Kind: chain.KindCronJob, Summary: "cj-healthy whose last schedule time is written 3 h back, as after a controller down that long: the controller warns TooManyMissedTimes and starts the newest run (since 1.20 it does not stop)",
		Health: chain.Healthy, LabOnly: labProgram, NotOnRealNode: onTheMinute, Deadline: 100 * time.Second},
	{Name: "cj-suspended", Kind: chain.KindCronJob, Summary: "a CronJob created suspended", Health: chain.Broken, Link: chain.LinkStored, Cause: "CronJobSuspended"},
	{Name: "cj-forbid-blocked", Kind: chain.KindCronJob, Summary: "every minute, concurrencyPolicy Forbid, a Job that never ends: later runs are skipped", Health: chain.Broken, Link: chain.LinkSchedule, Cause: "ConcurrencyForbidBlocked", Deadline: 3 * time.Minute},
	{Name: "cj-last-run-failed", Kind: chain.KindCronJob, Summary: "every minute, a Job whose one pod exits 1, backoffLimit 0", Health: chain.Broken, Link: chain.LinkCompletion, Cause: "BackoffLimitExceeded", LabOnly: labProgram, NotOnRealNode: onTheMinute, Deadline: 100 * time.Second},
}

// All is every scenario, in the chain's order.
func All() []Scenario {
	out := make([]Scenario, len(all))
	for i, s := range all {
		if s.Deadline == 0 {
			s.Deadline = defaultDeadline
		}
		out[i] = s
	}
	return out
}

// Get finds a scenario by name.
func Get(name string) (Scenario, error) {
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q: run `kubectl chain lab scenarios` to list them", name)
}
