package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// The admission plugins built into kube-apiserver that refuse a pod because
// of the namespace it lands in: ResourceQuota, LimitRanger, PodSecurity,
// ServiceAccount and ValidatingAdmissionPolicy. Webhooks and the API
// server's error wrappers are decoded in controller.go.

// quotaExceededRE matches k8s.io/apiserver
// pkg/admission/plugin/resourcequota/controller.go: 'exceeded quota: %s,
// requested: %s, used: %s, limited: %s'. The lists are prettyPrint's
// "name=quantity" joined by "," without spaces, so ", used: " cannot occur
// inside them.
var quotaExceededRE = regexp.MustCompile(`(?s)^(?:e|E)xceeded quota: (.+?), requested: (.*?), used: (.*?), limited: (.*)$`)

func decodeQuotaExceeded(s string) (Decoded, bool) {
	m := quotaExceededRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	name, requested, used, limited := m[1], m[2], m[3], m[4]
	var resources []string
	for _, kv := range strings.Split(requested, ",") {
		if r, _, _ := strings.Cut(kv, "="); r != "" {
			resources = append(resources, r)
		}
	}
	return Decoded{
		Cause:   QuotaExceeded,
		Summary: `exceeded quota "` + name + `": requested ` + requested + `, used ` + used + `, limited ` + limited,
		NextStep: "kubectl describe resourcequota " + name + " -n " + NamespacePlaceholder + "; then " +
			quotaRemedy(resources) + ", or raise the quota's spec.hard",
		Details: []chain.Detail{
			{Key: "quota", Value: name},
			{Key: "resources", Value: strings.Join(resources, ",")},
			{Key: "requested", Value: requested},
			{Key: "used", Value: used},
			{Key: "limited", Value: limited},
		},
	}, true
}

// quotaRemedy says which part of the Deployment consumes each quota
// resource: object counts come from replicas or old ReplicaSets, the rest
// from the containers' resources.
func quotaRemedy(resources []string) string {
	var compute, other, steps []string
	for _, r := range resources {
		switch {
		case r == "pods" || r == "count/pods":
			steps = append(steps, "lower spec.replicas or the rollout's maxSurge")
		case r == "count/replicasets.apps":
			steps = append(steps, "delete old ReplicaSets or lower spec.revisionHistoryLimit")
		case strings.HasPrefix(r, "count/"):
			other = append(other, r)
		default:
			compute = append(compute, r)
		}
	}
	if len(compute) > 0 {
		steps = append(steps, "lower spec.template.spec.containers[].resources for "+strings.Join(compute, ","))
	}
	if len(other) > 0 {
		steps = append(steps, "free up "+strings.Join(other, ","))
	}
	if len(steps) == 0 {
		return "lower what the pod requests"
	}
	return strings.Join(steps, "; ")
}

// quotaRequiresRE matches resourcequota/controller.go 'failed quota: %s: %v'
// around pkg/quota/v1/evaluator/core/pods.go 'must specify %s', whose items
// are '%s for: %s' (resource, containers) joined by "; ".
var quotaRequiresRE = regexp.MustCompile(`(?s)^(?:f|F)ailed quota: (.+?): must specify (.*)$`)

func decodeQuotaRequires(s string) (Decoded, bool) {
	m := quotaRequiresRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	name := m[1]
	d := Decoded{Cause: QuotaRequiresResources, Details: []chain.Detail{{Key: "quota", Value: name}}}
	var missing, sets []string
	for _, item := range strings.Split(m[2], "; ") {
		d.Details = append(d.Details, chain.Detail{Key: "missing", Value: item})
		resource, containers, ok := strings.Cut(item, " for: ")
		if !ok {
			missing = append(missing, item)
			sets = append(sets, item)
			continue
		}
		missing = append(missing, resource+" (missing on "+containers+")")
		sets = append(sets, "resources."+resource+" on containers "+containers)
	}
	d.Summary = `quota "` + name + `" requires ` + strings.Join(missing, ", ")
	d.NextStep = "in spec.template.spec set " + strings.Join(sets, " and ") +
		", or add a LimitRange with default requests and limits in " + NamespacePlaceholder
	return d, true
}

// limitViolationRE matches each error of plugin/pkg/admission/limitranger
// (admission.go): 'minimum|maximum %s usage per %s is %s, but request|limit
// is %s', '... is %s.  No request|limit is specified' and '%s max limit to
// request ratio per %s is %s, but ...'.
var limitViolationRE = regexp.MustCompile(`^(?:(?:minimum|maximum) \S+ usage per \S+ is \S+(?:, but (?:request|limit) is \S+|\.  No (?:request|limit) is specified)|\S+ max limit to request ratio per \S+ is \S+, but (?:provided ratio is \S+|no (?:request|limit) is specified or (?:request|limit) is 0))$`)

func decodeLimitRange(s string) (Decoded, bool) {
	violations := limitViolations(s)
	if len(violations) == 0 {
		return Decoded{}, false
	}
	d := Decoded{Cause: LimitRangeViolation}
	var resources []string
	for _, v := range violations {
		if !limitViolationRE.MatchString(v) {
			return Decoded{}, false
		}
		d.Details = append(d.Details, chain.Detail{Key: "violation", Value: v})
		resources = appendUnique(resources, limitResource(v))
	}
	d.Summary = "LimitRange: " + strings.Join(violations, "; ")
	d.NextStep = "kubectl describe limitrange -n " + NamespacePlaceholder + "; bring spec.template.spec.containers[].resources for " +
		strings.Join(resources, ",") + " within its bounds, or change the LimitRange"
	return d, true
}

// limitViolations splits the aggregate error ("[a, b]" when several) into
// its items. Items contain ", but", so a piece starting with "but " belongs
// to the one before it.
func limitViolations(s string) []string {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	var out []string
	for _, p := range strings.Split(s, ", ") {
		if strings.HasPrefix(p, "but ") && len(out) > 0 {
			out[len(out)-1] += ", " + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// limitResource is the resource a LimitRange violation is about.
func limitResource(v string) string {
	f := strings.Fields(v)
	if len(f) > 1 && (f[0] == "minimum" || f[0] == "maximum") {
		return f[1]
	}
	if len(f) > 0 {
		return f[0]
	}
	return v
}

// podSecurityRE matches k8s.io/pod-security-admission admission/admission.go:
// 'violates PodSecurity %q: %s', the detail being
// AggregateCheckResult.ForbiddenDetail: 'reason (detail)' items joined by
// ", ".
var podSecurityRE = regexp.MustCompile(`(?s)^violates PodSecurity "([^"]*)": (.*)$`)

func decodePodSecurity(s string) (Decoded, bool) {
	m := podSecurityRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	policy := m[1]
	d := Decoded{Cause: PodSecurityRejected, Details: []chain.Detail{{Key: "policy", Value: policy}}}
	var reasons, fixes []string
	for _, v := range splitTopLevel(m[2]) {
		d.Details = append(d.Details, chain.Detail{Key: "violation", Value: v})
		reason, detail, _ := strings.Cut(v, " (")
		reasons = append(reasons, reason)
		detail = strings.TrimSuffix(detail, ")")
		for _, f := range podSecurityFixes(reason, detail) {
			fixes = appendUnique(fixes, f)
		}
	}
	level, _, _ := strings.Cut(policy, ":")
	relax := "privileged"
	if level == "restricted" {
		relax = "baseline"
	}
	d.Summary = `violates PodSecurity "` + policy + `": ` + strings.Join(reasons, ", ")
	d.NextStep = "in spec.template.spec " + strings.Join(fixes, "; ") +
		"; or relabel the namespace: kubectl label namespace " + NamespacePlaceholder +
		" pod-security.kubernetes.io/enforce=" + relax + " --overwrite"
	return d, true
}

// Clauses of pod-security-admission's check details (policy/check_*.go):
// 'SUBJECT must set FIELD', 'SUBJECT must not set FIELD', 'SUBJECT must not
// include CAPS in FIELD'.
var (
	mustSetRE    = regexp.MustCompile(`(?s)^(.*?) must set (.*)$`)
	mustNotSetRE = regexp.MustCompile(`(?s)^(.*?) must not set (.*)$`)
	mustNotIncRE = regexp.MustCompile(`(?s)^(.*?) must not include (.*) in (\S+)$`)
)

// podSecurityFixes turns one violation into the changes that clear it,
// naming the fields and the containers the check named.
func podSecurityFixes(reason, detail string) []string {
	var out []string
	for _, clause := range strings.Split(detail, "; ") {
		if m := mustNotIncRE.FindStringSubmatch(clause); m != nil {
			out = append(out, "remove "+m[2]+" from "+m[3]+" ("+m[1]+")")
		} else if m := mustNotSetRE.FindStringSubmatch(clause); m != nil {
			out = append(out, "do not set "+m[2]+" ("+m[1]+")")
		} else if m := mustSetRE.FindStringSubmatch(clause); m != nil {
			out = append(out, "set "+m[2]+" ("+m[1]+")")
		}
	}
	if len(out) == 0 {
		fix := "remove " + reason
		if detail != "" {
			fix += " (" + detail + ")"
		}
		out = append(out, fix)
	}
	return out
}

// splitTopLevel splits on ", " outside parentheses and double quotes: the
// details themselves join container names with `", "`.
func splitTopLevel(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == ',' && depth == 0 && strings.HasPrefix(s[i:], ", "):
			out = append(out, s[start:i])
			start = i + 2
			i++
		}
	}
	return append(out, s[start:])
}

// serviceAccountRE matches plugin/pkg/admission/serviceaccount/admission.go:
// 'error looking up service account %s/%s: %v', and saNotFoundRE the
// NotFound it wraps ('serviceaccount %q not found').
var (
	serviceAccountRE = regexp.MustCompile(`(?s)^error looking up service account ([^/\s]+)/(\S*): (.*)$`)
	// serviceAccountOldRE is the same plugin's wording before 1.6.
	serviceAccountOldRE = regexp.MustCompile(`^service account ([^/\s]+)/(\S+) was not found, retry after the service account is created`)
	saNotFoundRE        = regexp.MustCompile(`^serviceaccount "([^"]*)" not found\.?$`)
)

func decodeServiceAccount(s string) (Decoded, bool) {
	m := serviceAccountRE.FindStringSubmatch(s)
	if m == nil {
		m = serviceAccountOldRE.FindStringSubmatch(s)
		if m != nil {
			m = append(m, `serviceaccount "`+m[2]+`" not found`)
		}
	}
	if m == nil || !saNotFoundRE.MatchString(m[3]) {
		return Decoded{}, false
	}
	ns, name := m[1], m[2]
	return Decoded{
		Cause:   ServiceAccountNotFound,
		Summary: `ServiceAccount "` + name + `" not found in namespace "` + ns + `"`,
		NextStep: "create it (kubectl create serviceaccount " + name + " -n " + ns +
			") or fix spec.template.spec.serviceAccountName",
		Details: []chain.Detail{{Key: "serviceAccount", Value: name}, {Key: "namespace", Value: ns}},
	}, true
}

// admissionPolicyRE matches k8s.io/apiserver
// pkg/admission/plugin/policy/validating/dispatcher.go: "ValidatingAdmissionPolicy
// '%s' with binding '%s' denied request: %s", or "ValidatingAdmissionPolicy
// '%s' denied request: %s" when the policy itself could not be configured
// (no binding is named then). Only the first denial is reported. Policy and
// binding names are DNS subdomains, so they hold no quote.
var admissionPolicyRE = regexp.MustCompile(`(?s)^ValidatingAdmissionPolicy '([^']*)'(?: with binding '([^']*)')? denied request: (.*)$`)

// policyErrorRE matches the messages of a policy that could not be
// evaluated rather than one whose validation came out false: the
// dispatcher's "failed to configure policy|binding: %w" (policy_dispatcher.go,
// e.g. a missing paramRef object) and "unrecognized failure policy", and
// plugin/cel/activation.go's "expression '%v' resulted in error: %v" and
// cost-budget error. With failurePolicy Fail these deny every request,
// whatever the pod says, so the fix is in the policy.
var policyErrorRE = regexp.MustCompile(`(?s)^(?:failed to configure (?:policy|binding): |unrecognized failure policy: |expression '.*' resulted in error: |validation failed due to running out of cost budget|failed messageExpression: )`)

func decodeAdmissionPolicy(s string) (Decoded, bool) {
	m := admissionPolicyRE.FindStringSubmatch(s)
	if m == nil {
		return Decoded{}, false
	}
	policy, binding, msg := m[1], m[2], strings.TrimSpace(m[3])
	d := Decoded{Cause: AdmissionPolicyDenied, Details: []chain.Detail{{Key: "policy", Value: policy}}}
	if binding != "" {
		d.Details = append(d.Details, chain.Detail{Key: "binding", Value: binding})
	}
	show := "kubectl get validatingadmissionpolicy " + policy + " -o yaml"
	if binding != "" {
		show += "; kubectl get validatingadmissionpolicybinding " + binding + " -o yaml"
	}
	if msg == "" {
		// The validator always writes one; keep a malformed text readable.
		d.Summary = `ValidatingAdmissionPolicy "` + policy + `" denied the pod`
		d.NextStep = "read the policy's validations: " + show
		return d, true
	}
	d.Details = append(d.Details, chain.Detail{Key: "message", Value: msg})
	if policyErrorRE.MatchString(msg) {
		d.Summary = `ValidatingAdmissionPolicy "` + policy + `" cannot be evaluated and fails closed: ` + msg
		d.NextStep = "fix the policy or its binding (" + show + "): with failurePolicy Fail it denies every pod while broken"
		return d, true
	}
	d.Summary = `ValidatingAdmissionPolicy "` + policy + `" denied the pod: ` + msg
	d.NextStep = `change spec.template as the policy requires ("` + msg + `"), or the policy: ` + show
	return d, true
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
