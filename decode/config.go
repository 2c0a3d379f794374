package decode

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Container config causes: the kubelet could not build a container's
// configuration (environment, security context) before asking the runtime to
// create it. The pod stays in CreateContainerConfigError.
const (
	ConfigMapNotFound     chain.CauseID = "ConfigMapNotFound"
	SecretNotFound        chain.CauseID = "SecretNotFound"
	ConfigKeyNotFound     chain.CauseID = "ConfigKeyNotFound"
	RunAsNonRootViolation chain.CauseID = "RunAsNonRootViolation"
	ContainerConfigError  chain.CauseID = "ContainerConfigError"
)

// configCauses are the catalogue entries for container config errors. Missing
// objects are judged after a grace window: the kubelet's watch-based cache can
// briefly miss an object created a moment before the pod.
var configCauses = []Cause{
	{
		ID:       ConfigMapNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a ConfigMap referenced by the container's environment does not exist",
		NextStep: "create the ConfigMap in the pod's namespace (kubectl create configmap NAME --from-literal=KEY=VALUE), or fix spec.template.spec.containers[].envFrom[].configMapRef / env[].valueFrom.configMapKeyRef",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       SecretNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a Secret referenced by the container's environment does not exist",
		NextStep: "create the Secret in the pod's namespace (kubectl create secret generic NAME --from-literal=KEY=VALUE), or fix spec.template.spec.containers[].envFrom[].secretRef / env[].valueFrom.secretKeyRef",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       ConfigKeyNotFound,
		Link:     chain.LinkContainers,
		Summary:  "a key referenced from a ConfigMap or Secret does not exist in it",
		NextStep: "add the key to the ConfigMap or Secret, or fix the key in spec.template.spec.containers[].env[].valueFrom (or mark the reference optional: true)",
		Terminal: TerminalRule{Mode: AfterGrace},
	},
	{
		ID:       RunAsNonRootViolation,
		Link:     chain.LinkContainers,
		Summary:  "the container must run as non-root but the image runs as root or as a non-numeric user",
		NextStep: "set spec.template.spec.containers[].securityContext.runAsUser to a non-zero UID, or build the image with a numeric non-root USER",
		Terminal: TerminalRule{Mode: Immediate},
	},
	{
		ID:       ContainerConfigError,
		Link:     chain.LinkContainers,
		Summary:  "the kubelet could not build the container's configuration",
		NextStep: "read the message with kubectl describe pod and fix the field of spec.template.spec.containers[] it names",
		Terminal: TerminalRule{Mode: AfterGrace}, Generic: true,
	},
}

// Waiting reason and event texts written by the kubelet
// (pkg/kubelet/kuberuntime/kuberuntime_container.go).
const (
	reasonCreateContainerConfigError = "CreateContainerConfigError"
	reasonKubeletFailed              = "Failed"
	kubeletErrorPrefix               = "Error: "
)

var (
	// cfgNotFoundRe matches the API NotFound text the kubelet's ConfigMap and
	// Secret managers return: `configmap "app-config" not found` (watch
	// cache, singular) or `configmaps "app-config" not found` (API server).
	cfgNotFoundRe = regexp.MustCompile(`(?:^|[^a-z])(configmaps?|secrets?) "([^"\s]*)" not found`)
	// cfgKeyRe matches "couldn't find key %v in ConfigMap %v/%v" and the
	// Secret form from makeEnvironmentVariables (pkg/kubelet/kubelet_pods.go).
	cfgKeyRe = regexp.MustCompile(`(?i:c)ouldn't find key (\S+) in (ConfigMap|Secret) ([^/\s]+)/(\S+)`)
	// cfgContainerRe matches the ", container: %s)" tail of the runAsNonRoot
	// errors (pkg/kubelet/kuberuntime/security_context_others.go).
	cfgContainerRe = regexp.MustCompile(`, container: ([^\s)]+)\)\s*$`)
	// cfgNonNumericRe matches "image has non-numeric user (%s), cannot verify".
	cfgNonNumericRe = regexp.MustCompile(`non-numeric user \((.*?)\), cannot verify`)
	// cfgSyncRe matches "failed to sync %s cache: %v"
	// (pkg/kubelet/util/manager/watch_based_manager.go).
	cfgSyncRe = regexp.MustCompile(`failed to sync (\S+) cache: (.*)`)
)

// ContainerConfig decodes waiting reason CreateContainerConfigError (and the
// kubelet's Failed "Error: ..." event with the same text). The Failed event
// reason is shared with image pulls and runtime errors, so for it only the
// texts known to be config errors are claimed.
func ContainerConfig(reason, message string) (d Decoded, ok bool) {
	msg := message
	switch reason {
	case reasonCreateContainerConfigError:
	case reasonKubeletFailed:
		rest, found := strings.CutPrefix(message, kubeletErrorPrefix)
		if !found {
			return Decoded{}, false
		}
		msg = rest
	default:
		return Decoded{}, false
	}
	if d, ok := decodeConfigText(msg); ok {
		return d, true
	}
	if reason == reasonKubeletFailed {
		return Decoded{}, false
	}
	summary := "container config error: " + kubeletHead(msg)
	if strings.TrimSpace(msg) == "" {
		// The state without its message (kubectl get pods' STATUS).
		summary = "container config error (" + reason + "); the message that names the field is not in the input"
	}
	return Decoded{Cause: ContainerConfigError, Summary: summary}, true
}

// decodeConfigText recognises the specific config error texts.
func decodeConfigText(msg string) (Decoded, bool) {
	if m := cfgKeyRe.FindStringSubmatch(msg); m != nil {
		return configKeyNotFound(strings.ToLower(m[2]), m[3], m[4], m[1]), true
	}
	if kind, name, ok := parseConfigNotFound(msg); ok {
		return configObjectNotFound(kind, name), true
	}
	if d, ok := runAsNonRoot(msg); ok {
		return d, true
	}
	if m := cfgSyncRe.FindStringSubmatch(msg); m != nil {
		return Decoded{
			Cause:    ContainerConfigError,
			Summary:  fmt.Sprintf("the kubelet could not sync its %s cache: %s", m[1], kubeletHead(m[2])),
			NextStep: "usually a short blip while the kubelet's watch starts; if it persists, check the node's connection to the API server",
			Details:  []chain.Detail{{Key: "cache", Value: m[1]}},
		}, true
	}
	return Decoded{}, false
}

// parseConfigNotFound finds `configmap "x" not found` or `secret "x" not
// found` anywhere in s and returns "configmap" or "secret" and the name.
func parseConfigNotFound(s string) (kind, name string, ok bool) {
	m := cfgNotFoundRe.FindStringSubmatch(s)
	if m == nil || m[2] == "" {
		return "", "", false
	}
	return strings.TrimSuffix(m[1], "s"), m[2], true
}

// configObjectNotFound is a missing ConfigMap or Secret referenced by env.
func configObjectNotFound(kind, name string) Decoded {
	details := []chain.Detail{{Key: "kind", Value: kind}, {Key: "name", Value: name}}
	if kind == "secret" {
		return Decoded{
			Cause:    SecretNotFound,
			Summary:  fmt.Sprintf("Secret %q not found", name),
			NextStep: fmt.Sprintf("create Secret %q in the pod's namespace (kubectl create secret generic %s --from-literal=KEY=VALUE), or fix the name in spec.template.spec.containers[].envFrom[].secretRef / env[].valueFrom.secretKeyRef", name, name),
			Details:  details,
		}
	}
	return Decoded{
		Cause:    ConfigMapNotFound,
		Summary:  fmt.Sprintf("ConfigMap %q not found", name),
		NextStep: fmt.Sprintf("create ConfigMap %q in the pod's namespace (kubectl create configmap %s --from-literal=KEY=VALUE), or fix the name in spec.template.spec.containers[].envFrom[].configMapRef / env[].valueFrom.configMapKeyRef", name, name),
		Details:  details,
	}
}

// configKeyNotFound is a key missing from an existing ConfigMap or Secret.
func configKeyNotFound(kind, namespace, name, key string) Decoded {
	title, ref, edit := "ConfigMap", "configMapKeyRef", "configmap"
	if kind == "secret" {
		title, ref, edit = "Secret", "secretKeyRef", "secret"
	}
	return Decoded{
		Cause:    ConfigKeyNotFound,
		Summary:  fmt.Sprintf("key %q not found in %s %s/%s", key, title, namespace, name),
		NextStep: fmt.Sprintf("add key %q to %s %q (kubectl edit %s %s -n %s), or fix spec.template.spec.containers[].env[].valueFrom.%s.key (or mark it optional: true)", key, title, name, edit, name, namespace, ref),
		Details: []chain.Detail{
			{Key: "kind", Value: kind},
			{Key: "name", Value: name},
			{Key: "key", Value: key},
			{Key: "namespace", Value: namespace},
		},
	}
}

// runAsNonRoot decodes the kubelet's refusals to start a runAsNonRoot
// container whose image user is root, non-numeric or invalid.
func runAsNonRoot(msg string) (Decoded, bool) {
	var why string
	switch {
	case strings.Contains(msg, "runAsNonRoot and image will run as root"):
		why = "the image runs as root"
	case strings.Contains(msg, "runAsNonRoot and image has non-numeric user"):
		user := ""
		if m := cfgNonNumericRe.FindStringSubmatch(msg); m != nil {
			user = m[1]
		}
		why = fmt.Sprintf("the image's user %q is not numeric, so the kubelet cannot verify it is non-root", user)
	case strings.Contains(msg, "runAsUser breaks non-root policy"):
		why = "runAsUser is 0"
	case strings.Contains(msg, "runAsNonRoot and image has an invalid user id"):
		why = "the image's user id is invalid"
	default:
		return Decoded{}, false
	}
	container := ""
	if m := cfgContainerRe.FindStringSubmatch(msg); m != nil {
		container = m[1]
	}
	d := Decoded{
		Cause:    RunAsNonRootViolation,
		Summary:  "runAsNonRoot is set but " + why,
		NextStep: "set spec.template.spec.containers[].securityContext.runAsUser to a non-zero numeric UID, or build the image with a numeric non-root USER",
	}
	if container != "" {
		d.Summary = fmt.Sprintf("container %q has runAsNonRoot but %s", container, why)
		d.NextStep = fmt.Sprintf("set spec.template.spec.containers[%s].securityContext.runAsUser to a non-zero numeric UID, or build the image with a numeric non-root USER", container)
		d.Details = []chain.Detail{{Key: "container", Value: container}}
	}
	return d, true
}

// kubeletHead is the first line of s, trimmed and cut to a readable length:
// summaries are one line; the evidence keeps the full text.
func kubeletHead(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	const limit = 200
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
