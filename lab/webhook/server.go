// Package webhook is the lab's admission webhook server: a real HTTPS
// endpoint on loopback, with a certificate from the lab's CA, that the API
// server calls through ValidatingWebhookConfigurations the scenarios create.
// It makes a webhook denial reach the ReplicaSet controller exactly as on a
// real cluster: the API server wraps the server's own message in its
// `admission webhook "NAME" denied the request: ...`.
//
// Each path is one policy, so a scenario chooses the policy with the URL of
// its webhook and the server needs no configuration:
//
//	/pods/require-label/KEY   deny pods without label KEY
package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RequireLabelPath is the path prefix of the policy that denies pods
// without a label: the key follows it.
const RequireLabelPath = "/pods/require-label/"

// maxReview bounds a request body: the API server sends the object and its
// old version, each at most etcd's 1.5 MiB request limit.
const maxReview = 7 << 20

// Handler serves the policies and /readyz. Every decision is written to
// log, one line each, so `kubectl chain lab logs admission-webhook` shows
// what the API server asked.
func Handler(log io.Writer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("POST "+RequireLabelPath+"{key...}", func(w http.ResponseWriter, r *http.Request) {
		serveReview(w, r, log, requireLabel(r.PathValue("key")))
	})
	return mux
}

// policy decides one admission request: a non-empty denial refuses it.
type policy func(req *admissionv1.AdmissionRequest) (denial string, err error)

// requireLabel denies the creation or update of a pod without label key;
// any other object or subresource passes (the webhook's rules should not
// send them, but a server must answer what it gets).
func requireLabel(key string) policy {
	return func(req *admissionv1.AdmissionRequest) (string, error) {
		if req.Resource.Group != "" || req.Resource.Resource != "pods" || req.SubResource != "" {
			return "", nil
		}
		var obj struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(req.Object.Raw, &obj); err != nil {
			return "", fmt.Errorf("decoding the pod: %w", err)
		}
		if _, ok := obj.Metadata.Labels[key]; ok {
			return "", nil
		}
		return fmt.Sprintf("pods must carry the label %q", key), nil
	}
}

// serveReview answers one AdmissionReview (admission.k8s.io/v1, the only
// version the scenarios' configurations accept). A body that is not a
// review gets 400, which the API server reports as a failed call. A
// denial is answered as webhooks built on controller-runtime answer it:
// code 403, reason Forbidden, the policy's message.
func serveReview(w http.ResponseWriter, r *http.Request, log io.Writer, decide policy) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxReview)).Decode(&review); err != nil {
		http.Error(w, "reading the AdmissionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := review.Request
	if req == nil {
		http.Error(w, "the AdmissionReview has no request", http.StatusBadRequest)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	denial, err := decide(req)
	switch {
	case err != nil:
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: err.Error()}
	case denial != "":
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: denial}
	}
	fmt.Fprintf(log, "%s %s %s %s: %s\n", verdict(resp), req.Operation, req.Resource.Resource, objectName(req), reason(resp))
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	if out.APIVersion == "" {
		out.APIVersion, out.Kind = admissionv1.SchemeGroupVersion.String(), "AdmissionReview"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func verdict(r *admissionv1.AdmissionResponse) string {
	if r.Allowed {
		return "allowed"
	}
	return "denied"
}

func reason(r *admissionv1.AdmissionResponse) string {
	if r.Result == nil {
		return "ok"
	}
	return r.Result.Message
}

// objectName is NAMESPACE/NAME of the request. Validating webhooks see the
// name the API server generated; a mutating one would see none for a
// CREATE with generateName (admission/v1: "this field will contain an
// empty string").
func objectName(req *admissionv1.AdmissionRequest) string {
	name := req.Name
	if name == "" {
		name = "(generateName)"
	}
	return strings.TrimPrefix(req.Namespace+"/"+name, "/")
}
