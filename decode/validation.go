package decode

import (
	"regexp"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Validation causes: the API server (or kubectl's client-side validation)
// refused to store the Deployment at all, so no controller ever sees it.
// Users meet them as `kubectl apply` or Helm errors; the walk itself finds
// the Deployment missing (DeploymentNotFound).
const (
	SelectorMismatch  chain.CauseID = "SelectorMismatch"
	SelectorMissing   chain.CauseID = "SelectorMissing"
	SelectorImmutable chain.CauseID = "SelectorImmutable"
	ManifestInvalid   chain.CauseID = "ManifestInvalid"
	// StatefulSetSpecImmutable: an update of a StatefulSet's spec fields
	// other than those the API server lets change.
	StatefulSetSpecImmutable chain.CauseID = "StatefulSetSpecImmutable"
)

// validationCauses are immediate: the same manifest is refused every time.
var validationCauses = []Cause{
	{ID: SelectorMismatch, Link: chain.LinkStored,
		Summary:  "the Deployment was refused: spec.selector does not match the pod template's labels",
		NextStep: "make spec.template.metadata.labels include every label of spec.selector.matchLabels (and satisfy its matchExpressions)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: SelectorMissing, Link: chain.LinkStored,
		Summary:  "the Deployment was refused: spec.selector is missing or empty (required since apps/v1)",
		NextStep: "add spec.selector.matchLabels with the labels of spec.template.metadata.labels (apps/v1 no longer defaults it)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: SelectorImmutable, Link: chain.LinkStored,
		Summary:  "the Deployment was refused: spec.selector cannot change once the Deployment exists",
		NextStep: "keep the stored selector (kubectl get deployment NAME -o jsonpath='{.spec.selector}'), or delete and recreate the Deployment (kubectl delete deployment NAME, then apply; pods are replaced)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: StatefulSetSpecImmutable, Link: chain.LinkStored,
		Summary:  "the update was refused: a StatefulSet's spec may change only in replicas, template, updateStrategy and a few more fields (not volumeClaimTemplates, serviceName, selector or podManagementPolicy)",
		NextStep: "keep the stored fields, or recreate the StatefulSet without its pods: kubectl delete statefulset NAME --cascade=orphan, then apply (the pods and claims are adopted by the new one)",
		Terminal: TerminalRule{Mode: Immediate}},
	{ID: ManifestInvalid, Link: chain.LinkStored,
		Summary:  "the Deployment was refused: the manifest does not validate",
		NextStep: "fix the field the error names (kubectl explain deployment.spec... shows its schema), then apply again; kubectl apply --dry-run=server checks without storing",
		Terminal: TerminalRule{Mode: Immediate}, Generic: true},
}

// The field errors of pkg/apis/apps/validation (ValidateDeploymentSpec,
// ValidateDeploymentUpdate) and apimachinery's field.Error texts, as the API
// server lists them after 'The Deployment "NAME" is invalid: ', and the
// client-side schema errors of kubectl and the strict decoder.
var (
	selectorImmutableRE = regexp.MustCompile(`spec\.selector: Invalid value: .*field is immutable`)
	selectorMissingRE   = regexp.MustCompile(`spec\.selector: Required value|missing required field "selector"|empty selector is invalid for deployment`)
	selectorMismatchRE  = regexp.MustCompile("`selector` does not match template `labels`")
	// apps/validation ValidateStatefulSetUpdate: "updates to statefulset spec
	// for fields other than 'replicas', 'template', and 'updateStrategy' are
	// forbidden" (1.8-1.12; the list grew since), a field.Forbidden on spec.
	statefulSetSpecRE = regexp.MustCompile(`updates to statefulset spec for fields\s+other than`)
	invalidRE         = regexp.MustCompile(`" is invalid|The request is invalid|strict decoding error|unknown field "|cannot be handled as a|no matches for kind|error validating data|ValidationError\(`)
	invalidObjectRE   = regexp.MustCompile(`(?:The |\b)([A-Z][A-Za-z]*)(?:\.[a-z.]+)? "([^"]+)" is invalid`)
)

// Validation decodes an API server or kubectl validation error for a
// workload manifest. The selector errors come first: one message often
// lists the mismatch beside the missing or immutable selector that causes it.
func Validation(message string) (Decoded, bool) {
	var d Decoded
	switch {
	case statefulSetSpecRE.MatchString(message):
		d.Cause = StatefulSetSpecImmutable
	case selectorImmutableRE.MatchString(message):
		d.Cause = SelectorImmutable
	case selectorMissingRE.MatchString(message):
		d.Cause = SelectorMissing
	case selectorMismatchRE.MatchString(message):
		d.Cause = SelectorMismatch
	case invalidRE.MatchString(message):
		d.Cause = ManifestInvalid
		d.Summary = "the manifest was refused: " + rtOneLine(message)
	default:
		return Decoded{}, false
	}
	if m := invalidObjectRE.FindStringSubmatch(message); m != nil {
		d.Details = []chain.Detail{{Key: "kind", Value: m[1]}, {Key: "name", Value: m[2]}}
		if d.Cause == SelectorImmutable {
			kind := strings.ToLower(m[1])
			d.NextStep = "keep the stored selector (kubectl get " + kind + " " + m[2] + " -o jsonpath='{.spec.selector}'), or delete and recreate it (kubectl delete " + kind + " " + m[2] + ", then apply; its pods are replaced)"
		}
	}
	return d, true
}
