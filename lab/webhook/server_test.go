package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-chain/kubectl-chain/lab/pki"
)

// review is the AdmissionReview the API server posts for a pod (the body
// of k8s.io/apiserver pkg/admission/plugin/webhook/request.CreateV1AdmissionReview).
func review(t *testing.T, resource metav1.GroupVersionResource, sub string, obj runtime.Object) []byte {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11"), Resource: resource, SubResource: sub,
			Namespace: "sc-webhook-denied", Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "web-6d4b8c9f7-", Labels: labels},
	}
}

var podsResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}

func TestRequireLabel(t *testing.T) {
	tests := []struct {
		name string
		path string
		body []byte
		want *admissionv1.AdmissionResponse
	}{
		{
			name: "pod without the label",
			path: "/pods/require-label/team",
			body: review(t, podsResource, "", pod(map[string]string{"app": "web"})),
			want: &admissionv1.AdmissionResponse{UID: "7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11", Result: &metav1.Status{
				Code: 403, Reason: metav1.StatusReasonForbidden, Message: `pods must carry the label "team"`}},
		},
		{
			name: "pod with the label",
			path: "/pods/require-label/team",
			body: review(t, podsResource, "", pod(map[string]string{"app": "web", "team": "shop"})),
			want: &admissionv1.AdmissionResponse{UID: "7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11", Allowed: true},
		},
		{
			name: "prefixed label key",
			path: "/pods/require-label/example.com/team",
			body: review(t, podsResource, "", pod(map[string]string{"team": "shop"})),
			want: &admissionv1.AdmissionResponse{UID: "7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11", Result: &metav1.Status{
				Code: 403, Reason: metav1.StatusReasonForbidden, Message: `pods must carry the label "example.com/team"`}},
		},
		{
			name: "status subresource passes",
			path: "/pods/require-label/team",
			body: review(t, podsResource, "status", pod(nil)),
			want: &admissionv1.AdmissionResponse{UID: "7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11", Allowed: true},
		},
		{
			name: "another resource passes",
			path: "/pods/require-label/team",
			body: review(t, metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", &corev1.ConfigMap{}),
			want: &admissionv1.AdmissionResponse{UID: "7d1f3c1e-5b0a-4c55-9d43-0e5c2b6a9f11", Allowed: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			rec := httptest.NewRecorder()
			Handler(&log).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, tt.path, bytes.NewReader(tt.body)))
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var got admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, got.TypeMeta); diff != "" {
				t.Errorf("type (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got.Response); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if !strings.Contains(log.String(), "sc-webhook-denied/(generateName)") {
				t.Errorf("log line %q does not name the object", log.String())
			}
		})
	}
}

func TestRejectsWhatIsNotAReview(t *testing.T) {
	for name, tt := range map[string]struct {
		method, path, body string
		want               int
	}{
		"not JSON":         {http.MethodPost, "/pods/require-label/team", "{", http.StatusBadRequest},
		"no request":       {http.MethodPost, "/pods/require-label/team", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, http.StatusBadRequest},
		"unknown policy":   {http.MethodPost, "/pods/require-nothing", "{}", http.StatusNotFound},
		"GET of a policy":  {http.MethodGet, "/pods/require-label/team", "", http.StatusMethodNotAllowed},
		"readiness answer": {http.MethodGet, "/readyz", "", http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		Handler(&bytes.Buffer{}).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
		if rec.Code != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", name, rec.Code, tt.want, rec.Body)
		}
	}
}

// TestRunServesTLS serves with a certificate issued as the lab issues it and
// calls the server as the API server does: the loopback IP, verified
// against the CA bundle alone.
func TestRunServesTLS(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ca, err := pki.NewCA("test", now)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.Issue(pki.Request{CommonName: "webhook", IPs: []net.IP{net.ParseIP("127.0.0.1")}, Server: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "w.crt"), filepath.Join(dir, "w.key")
	if err := pki.WritePair(certFile, keyFile, cert, key); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, addr, certFile, keyFile, &bytes.Buffer{}) }()

	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer client.CloseIdleConnections()
	body := review(t, podsResource, "", pod(nil))
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err = client.Post("https://"+addr+"/pods/require-label/team", "application/json", bytes.NewReader(body))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var got admissionv1.AdmissionReview
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got.Response == nil || got.Response.Allowed {
		t.Errorf("response %+v, want a denial", got.Response)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel: %v", err)
	}
}

func TestPublishDiscover(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset()
	_, err := Discover(ctx, c)
	if err == nil || !strings.Contains(err.Error(), "kubectl chain lab up") {
		t.Errorf("Discover without a lab: %v, want an error that says to use a lab", err)
	}
	want := Endpoint{URL: "https://127.0.0.1:40123", CABundle: []byte("-----BEGIN CERTIFICATE-----\n")}
	for range 2 { // the second replaces the first
		if err := Publish(ctx, c, want); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Discover(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}
