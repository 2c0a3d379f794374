package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Outer wrappers the API server puts around an admission error:
// apimachinery's NewForbidden ('%s %q is forbidden: %v', or '%s is
// forbidden: %v' without a name) and NewInternalError ('Internal error
// occurred: %v', used for a webhook that fails closed).
var forbiddenRE = regexp.MustCompile(`(?s)^[a-z0-9.\-]+(?: "[^"]*")? is forbidden: (.*)$`)

const internalErrorPrefix = "Internal error occurred: "

// unwrapAPIError strips the API server's wrappers so the admission plugin's
// own words can be matched from their start.
func unwrapAPIError(err string) string {
	for range 3 {
		if rest, ok := strings.CutPrefix(err, internalErrorPrefix); ok {
			err = rest
			continue
		}
		if m := forbiddenRE.FindStringSubmatch(err); m != nil {
			err = m[1]
			continue
		}
		break
	}
	return err
}

// admissionDecoders each recognise one admission plugin's refusal, matched
// from the start of the unwrapped error so that text quoted inside another
// plugin's message (a webhook's free-form reason) is never mistaken for it.
var admissionDecoders = []func(string) (Decoded, bool){
	decodeQuotaExceeded,
	decodeQuotaRequires,
	decodeQuotaLegacy,
	decodePodSecurityPolicy,
	decodeWebhookSlow,
	decodeRequestTimeout,
	decodePodSecurity,
	decodeAdmissionPolicy,
	decodeWebhookDenied,
	decodeWebhookUnavailable,
	decodeServiceAccount,
	decodeLimitRange,
}

// decodeAdmission names the admission plugin that refused a create, from
// the API server's error text. Users paste it inside other words (kubectl's
// "Error from server (Forbidden): error when creating ...", Helm's "failed to
// create resource: ", an operator's own prefix), so each clause start is
// tried, leftmost first: a plugin's words quoted inside an earlier plugin's
// message (a webhook's free-form reason) still lose to that plugin.
func decodeAdmission(err string) (Decoded, bool) {
	for _, c := range clauseStarts(err) {
		inner := unwrapAPIError(c)
		for _, decode := range admissionDecoders {
			if d, ok := decode(inner); ok {
				return d, true
			}
		}
	}
	return Decoded{}, false
}

// clauseStarts returns s and every tail of it that starts a clause: after
// ": " and after a line break.
func clauseStarts(s string) []string {
	out := []string{s}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			out = append(out, strings.TrimSpace(s[i+1:]))
		case s[i] == ':' && i+1 < len(s) && s[i+1] == ' ':
			out = append(out, strings.TrimSpace(s[i+2:]))
		}
	}
	return out
}

// pspRE matches the PodSecurityPolicy admission plugin of releases up to
// 1.24 (plugin/pkg/admission/security/podsecuritypolicy: "unable to
// validate against any pod security policy: %v", "PodSecurityPolicy: unable
// to admit pod: %v", and "no providers available to validate pod request"
// when none is usable) and OpenShift's SCC admission ("unable to validate
// against any security context constraint: %v").
var pspRE = regexp.MustCompile(`(?s)^(?:unable to validate against any (pod security policy|security context constraint)|PodSecurityPolicy: unable to admit pod|no providers available to validate pod request)(?:: (.*))?$`)

func decodePodSecurityPolicy(s string) (Decoded, bool) {
	m := pspRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	kind := "PodSecurityPolicy"
	if m[1] == "security context constraint" {
		kind = "SecurityContextConstraints"
	}
	why := strings.TrimSpace(m[2])
	d := Decoded{Cause: PodSecurityPolicyRejected, Details: []chain.Detail{{Key: "policy", Value: kind}}}
	d.Summary = "no " + kind + " admits the pod"
	if why != "" && why != "[]" {
		d.Summary += ": " + why
		d.Details = append(d.Details, chain.Detail{Key: "violations", Value: why})
	} else {
		d.Summary += " (none is usable by its ServiceAccount)"
	}
	if kind == "SecurityContextConstraints" {
		d.NextStep = "grant the pod's ServiceAccount an SCC that allows these settings (oc adm policy add-scc-to-user SCC -z SERVICEACCOUNT -n " + NamespacePlaceholder + "), or drop them from spec.template.spec"
	} else {
		d.NextStep = "grant the pod's ServiceAccount use of a PodSecurityPolicy that allows these settings (a Role with verb use on podsecuritypolicies), or drop them from spec.template.spec"
	}
	return d, true
}

// Quota wordings of releases before 1.2 (plugin/pkg/admission/resourcequota):
// "%s quota is %s, current usage is %s, requesting %s." and "%s is limited
// by quota, must make explicit request."; "Exceeded quota" and "Failed
// quota" were capitalized until 1.4 and are matched by the current decoders.
var (
	quotaLegacyRE     = regexp.MustCompile(`^(\S+) quota is (\S+), current usage is (\S+), requesting (\S+?)\.?$`)
	quotaLegacyReqRE  = regexp.MustCompile(`^(\S+) is limited by quota, must make (?:explicit|non-zero) request`)
	quotaLegacyNoneRE = regexp.MustCompile(`^must make a non-zero request for (\S+?) since it is tracked by quota`)
)

func decodeQuotaLegacy(s string) (Decoded, bool) {
	if m := quotaLegacyRE.FindStringSubmatch(s); m != nil {
		return Decoded{Cause: QuotaExceeded,
			Summary:  m[1] + " quota is " + m[2] + ", " + m[3] + " used, the pod requests " + m[4],
			NextStep: "kubectl describe resourcequota -n " + NamespacePlaceholder + "; then " + quotaRemedy([]string{m[1]}) + ", or raise the quota's spec.hard",
			Details:  []chain.Detail{{Key: "resources", Value: m[1]}, {Key: "limited", Value: m[2]}, {Key: "used", Value: m[3]}, {Key: "requested", Value: m[4]}}}, true
	}
	m := quotaLegacyReqRE.FindStringSubmatch(s)
	if m == nil {
		m = quotaLegacyNoneRE.FindStringSubmatch(s)
	}
	if m == nil {
		return Decoded{}, false
	}
	return Decoded{Cause: QuotaRequiresResources,
		Summary:  "a quota on " + m[1] + " requires every container to request it",
		NextStep: "set resources.requests." + m[1] + " on every container in spec.template.spec, or add a LimitRange with default requests in " + NamespacePlaceholder,
		Details:  []chain.Detail{{Key: "missing", Value: m[1]}}}, true
}
