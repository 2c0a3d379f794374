package diagnose

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/decode"
)

// resourceObject is an object of a custom kind with the given status
// conditions (type, status, reason, message each).
func resourceObject(api chain.APIResource, name string, generation int64, conds ...[4]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(api.APIVersion())
	u.SetKind(api.Kind)
	u.SetNamespace("shop")
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	u.SetGeneration(generation)
	var cs []any
	for _, c := range conds {
		cs = append(cs, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3], "observedGeneration": generation})
	}
	if cs != nil {
		u.Object["status"] = map[string]any{"conditions": cs, "observedGeneration": generation}
	}
	return u
}

var (
	certificates = chain.APIResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates", Kind: "Certificate", Namespaced: true}
	helmReleases = chain.APIResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases", Kind: "HelmRelease", Namespaced: true}
)

// TestWalkResource checks a resource kind's chain: its status judged as
// kstatus judges it, then what it owns. Conditions are real controllers'
// words: cert-manager's for a Certificate whose Secret is not issued yet
// (cert-manager#6174), helm-controller's for a HelmRelease retrying an
// upgrade (helm-controller#1337) and for one whose retries are exhausted
// (Stalled, RetriesExceeded: helm-controller#1551).
func TestWalkResource(t *testing.T) {
	notIssued := resourceObject(certificates, "web-tls", 1,
		[4]string{"Issuing", "True", "DoesNotExist", "Issuing certificate as Secret does not exist"},
		[4]string{"Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"})
	issued := resourceObject(certificates, "web-tls", 1, [4]string{"Ready", "True", "Ready", "Certificate is up to date and has not expired"})
	retrying := resourceObject(helmReleases, "web", 2,
		[4]string{"Ready", "False", "RetryAfterInterval", "Will retry after 3m0s"},
		[4]string{"Released", "False", "UpgradeFailed", `Helm upgrade failed for release flux-system/flux-operator with chart flux-operator@0.32.0+e04786113bb9: failed to replace object: Deployment.apps "flux-operator" is invalid: spec.selector: Invalid value: {"matchLabels":{"app.kubernetes.io/instance":"flux-operator","app.kubernetes.io/name":"flux-operator"}}: field is immutable`})
	stalled := resourceObject(helmReleases, "web", 2, [4]string{"Ready", "False", "RetriesExceeded", ""}, [4]string{"Stalled", "True", "RetriesExceeded", ""})
	for _, tt := range []struct {
		name     string
		api      chain.APIResource
		obj      *unstructured.Unstructured
		owned    []*chain.Snapshot
		health   chain.Health
		link     chain.LinkID
		cause    chain.CauseID
		kstatus  status.Status
		evidence string
		next     string // in the verdict's next step
	}{
		{name: "current", api: certificates, obj: issued, health: chain.Healthy, kstatus: status.CurrentStatus},
		{name: "not found", api: certificates, health: chain.Broken, link: chain.LinkStored, cause: decode.ResourceNotFound},
		{name: "in progress", api: certificates, obj: notIssued, health: chain.Progressing, link: chain.LinkStatus, cause: decode.HealthProgressing, // Argo CD's cert-manager check decides
			kstatus: status.InProgressStatus, evidence: "Issuing certificate as Secret does not exist"},
		{name: "in progress, its conditions quoted", api: helmReleases, obj: retrying, health: chain.Progressing, link: chain.LinkStatus, cause: decode.ResourceInProgress,
			kstatus: status.InProgressStatus, evidence: "field is immutable"},
		{name: "failed", api: helmReleases, obj: stalled, health: chain.Broken, link: chain.LinkStatus, cause: decode.ResourceFailed, kstatus: status.FailedStatus, evidence: "RetriesExceeded"},
		{name: "owns a broken deployment", api: helmReleases, obj: retrying, owned: []*chain.Snapshot{quotaBroken()},
			health: chain.Broken, link: chain.LinkOwned, cause: decode.QuotaExceeded, kstatus: status.InProgressStatus, evidence: "exceeded quota"},
		// Stalled because of what it owns: the status is the first broken
		// link, and its next step names the owned workload's cause.
		{name: "failed, owning a broken deployment", api: helmReleases, obj: stalled, owned: []*chain.Snapshot{quotaBroken()},
			health: chain.Broken, link: chain.LinkStatus, cause: decode.ResourceFailed, kstatus: status.FailedStatus, evidence: "RetriesExceeded",
			next: "the cause is likely below it: helmrelease.helm.toolkit.fluxcd.io/web owns deployment/web"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &chain.Snapshot{Kind: chain.Kind(tt.api.Kind), Namespace: "shop", Name: "web", API: &tt.api, Object: tt.obj, Behind: tt.owned,
				Now: time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)}
			r := Walk(s, Options{})
			v := r.Verdict
			if v.Health != tt.health || v.Link != tt.link || v.Cause != tt.cause {
				t.Fatalf("verdict %s at %q cause %q (%s), want %s at %q cause %q", v.Health, v.Link, v.Cause, v.Summary, tt.health, tt.link, tt.cause)
			}
			if len(r.Links) != len(chain.ChainOf(s.Kind)) || r.Links[1].ID != chain.LinkStatus {
				t.Errorf("links %v, want the resource chain %v", r.Links, chain.ChainOf(s.Kind))
			}
			if tt.obj != nil {
				// The object's own verdict never disagrees with kstatus's.
				res, err := status.Compute(tt.obj)
				if err != nil || res.Status != tt.kstatus {
					t.Errorf("kstatus says %v (%v), the test expects %s", res, err, tt.kstatus)
				}
				want := map[status.Status]chain.Status{status.CurrentStatus: chain.StatusOK, status.InProgressStatus: chain.StatusProgressing, status.FailedStatus: chain.StatusBroken}[res.Status]
				if got := r.Links[1].Status; got != want {
					t.Errorf("status link %s, kstatus %s wants %s", got, res.Status, want)
				}
			}
			if tt.next != "" && !strings.Contains(v.NextStep, tt.next) {
				t.Errorf("next step %q, want it to say %q", v.NextStep, tt.next)
			}
			if tt.evidence != "" {
				var all []string
				for _, f := range r.Link(tt.link).Findings {
					for _, e := range f.Evidence {
						all = append(all, e.Reason+" "+e.Message)
					}
				}
				if !strings.Contains(strings.Join(all, "\n"), tt.evidence) {
					t.Errorf("evidence %q, want it to quote %q", all, tt.evidence)
				}
			}
		})
	}
}

// TestResourceRef checks how a resource kind's object is named: as
// kubectl prints it, with its group.
func TestResourceRef(t *testing.T) {
	if got := chain.ResourceRef(certificates, "web-tls").String(); got != "certificate.cert-manager.io/web-tls" {
		t.Errorf("ref %q", got)
	}
	core := chain.APIResource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	if got := chain.ResourceRef(core, "data").String(); got != "persistentvolumeclaim/data" {
		t.Errorf("ref %q", got)
	}
	if chain.IsResource(chain.KindDeployment) || chain.IsResource(chain.KindService) || chain.IsResource(chain.KindPod) || !chain.IsResource("Certificate") {
		t.Error("IsResource misclassifies")
	}
}

// TestUncontrolledCertificate: a Certificate no controller touched (no
// status: kstatus says Current) whose Issuer kubectl chain found missing
// is progressing within the grace (the Issuer may come in the same
// release) and broken after it, the missing Issuer named first.
func TestUncontrolledCertificate(t *testing.T) {
	cert := resourceObject(certificates, "web-tls", 1)
	cert.Object["spec"] = map[string]any{"secretName": "web-tls", "issuerRef": map[string]any{"name": "letsencrypt-prod"}}
	cert.SetCreationTimestamp(metav1.NewTime(walkT0))
	for _, tt := range []struct {
		after   time.Duration
		missing []string
		health  chain.Health
		cause   chain.CauseID
	}{
		{10 * time.Second, []string{`Issuer "letsencrypt-prod"`}, chain.Progressing, decode.CertificateIssuerNotFound},
		{5 * time.Minute, []string{`Issuer "letsencrypt-prod"`}, chain.Broken, decode.CertificateIssuerNotFound},
		{5 * time.Minute, nil, chain.Broken, decode.ResourceNotReconciled},
	} {
		s := &chain.Snapshot{Kind: chain.Kind(certificates.Kind), API: &certificates, Namespace: "shop", Name: "web-tls", Object: cert, Now: walkT0.Add(tt.after), Missing: tt.missing}
		r := Walk(s, Options{})
		if r.Verdict.Health != tt.health || r.Verdict.Cause != tt.cause || r.Verdict.Link != chain.LinkStatus {
			t.Errorf("after %s, missing %v: %s %s %s (%s); want %s %s at status", tt.after, tt.missing, r.Verdict.Health, r.Verdict.Cause, r.Verdict.Link, r.Verdict.Summary, tt.health, tt.cause)
		}
		if tt.missing != nil && !strings.Contains(r.Verdict.Summary, `Issuer "letsencrypt-prod"`) {
			t.Errorf("the missing Issuer is not named: %s", r.Verdict.Summary)
		}
	}
}

// TestCertificateIssuanceStep: a Certificate walked as a resource whose
// issuance failed names the step its Issuing condition quotes, where Argo
// CD's health check reads only its Ready condition ("Issuing certificate as
// Secret does not exist"). The words are cert-manager#4676's (cmctl status
// certificate), and cert-manager#7636's authorization error in cert-manager
// v1.21.1's format strings around it (certificates/issuing/
// issuing_controller.go#L426, certificaterequests/acme/acme.go#L219-220,
// the names filled).
func TestCertificateIssuanceStep(t *testing.T) {
	for _, tt := range []struct {
		issuing string
		cause   chain.CauseID
	}{
		{`The certificate request has failed to complete and will be retried: Failed to wait for order resource "drammenlegesenter-no-cert-kjbs7-3761388167" to become ready: order is in "errored" state: Failed to create Order: 429 urn:ietf:params:acme:error:rateLimited: Error creating new order :: too many failed authorizations recently: see https://letsencrypt.org/docs/rate-limits/`, decode.ACMERateLimited},
		{`The certificate request has failed to complete and will be retried: Failed to wait for order resource "web-tls-1-2046591346" to become ready: order is in "invalid" state: Accepting challenge authorization failed: acme: authorization error for sub.example.com: 400 urn:ietf:params:acme:error:dns: DNS problem: NXDOMAIN looking up A for sub.example.com - check that a DNS record exists for this domain; DNS problem: NXDOMAIN looking up AAAA for sub.example.com - check that a DNS record exists for this domain.`, decode.ACMEAuthorizationFailed},
	} {
		cert := resourceObject(certificates, "web-tls", 1,
			[4]string{"Issuing", "False", "Failed", tt.issuing},
			[4]string{"Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"})
		cert.Object["spec"] = map[string]any{"secretName": "web-tls", "issuerRef": map[string]any{"name": "letsencrypt-prod"}}
		cert.SetCreationTimestamp(metav1.NewTime(walkT0))
		s := &chain.Snapshot{Kind: chain.Kind(certificates.Kind), API: &certificates, Namespace: "shop", Name: "web-tls", Object: cert, Now: walkT0.Add(10 * time.Minute)}
		r := Walk(s, Options{})
		v := r.Verdict
		if v.Cause != tt.cause || v.Link != chain.LinkStatus || v.Health != chain.Broken {
			t.Errorf("%s %s %s (%s); want %s broken at status", v.Health, v.Cause, v.Link, v.Summary, tt.cause)
		}
		if !strings.Contains(v.Summary, "its Issuing condition") || v.NextStep == "" {
			t.Errorf("summary %q, next step %q: want the Issuing condition named and the cause's step", v.Summary, v.NextStep)
		}
	}
}

// TestCertificateWaitsOnChallenge: a Certificate walked as a resource and
// read with its CertificateRequest, the request's ACME Order and the
// Order's Challenge names the Challenge's step (cert-manager#5752's reason),
// progressing within the grace and broken after it, where its own
// conditions only say it is issuing. The request's words are cert-manager
// v1.21.1's "Waiting on certificate issuance from order %s/%s: %q"
// (certificaterequests/acme/acme.go#L228, the names filled).
func TestCertificateWaitsOnChallenge(t *testing.T) {
	cert := resourceObject(certificates, "web-tls", 1,
		[4]string{"Issuing", "True", "DoesNotExist", "Issuing certificate as Secret does not exist"},
		[4]string{"Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"})
	cert.Object["spec"] = map[string]any{"secretName": "web-tls", "issuerRef": map[string]any{"name": "letsencrypt-prod"}}
	cert.SetCreationTimestamp(metav1.NewTime(walkT0))
	object := func(apiVersion, kind, name string, status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"status": status}}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace("shop")
		u.SetName(name)
		return u
	}
	cr := object("cert-manager.io/v1", "CertificateRequest", "web-tls-1", map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": "Pending", "message": `Waiting on certificate issuance from order shop/web-tls-1-2046591346: "pending"`}}})
	order := object("acme.cert-manager.io/v1", "Order", "web-tls-1-2046591346", map[string]any{"state": "pending"})
	challenge := object("acme.cert-manager.io/v1", "Challenge", "web-tls-1-2046591346-3953186254", map[string]any{"state": "pending",
		"reason": "Waiting for HTTP-01 challenge propagation: wrong status code '404', expected '200'"})
	self := chain.Produced{API: certificates, Object: cert, Secret: "web-tls", Attempts: []*unstructured.Unstructured{cr},
		Steps: []*unstructured.Unstructured{order, challenge}}
	for _, tt := range []struct {
		after  time.Duration
		health chain.Health
	}{{10 * time.Second, chain.Progressing}, {10 * time.Minute, chain.Broken}} {
		s := &chain.Snapshot{Kind: chain.Kind(certificates.Kind), API: &certificates, Namespace: "shop", Name: "web-tls", Object: cert,
			Now: walkT0.Add(tt.after), Produced: []chain.Produced{self}}
		r := Walk(s, Options{})
		v := r.Verdict
		if v.Cause != decode.ACMEHTTP01SelfCheckFailed || v.Health != tt.health || v.Link != chain.LinkStatus {
			t.Errorf("after %s: %s %s %s (%s); want ACMEHTTP01SelfCheckFailed %s at status", tt.after, v.Health, v.Cause, v.Link, v.Summary, tt.health)
		}
		if f := r.Link(chain.LinkStatus).Findings; len(f) == 0 || len(f[0].Evidence) < 2 || f[0].Evidence[1].Message != challenge.Object["status"].(map[string]any)["reason"] {
			t.Errorf("after %s: evidence %+v, want the Challenge's reason after the health check's", tt.after, f)
		}
	}
}

// TestProducerWords: a SealedSecret of a sealed-secrets controller that
// wrote no status (0.9.8), only its ErrUnsealFailed event, is judged by that
// event's words (bitnami/sealed-secrets#378), not as one no controller
// acted on; a Warning event in words no decoder knows leaves its status as
// it was. A CertificateRequest whose Ready False names a missing Issuer
// has that cause (cert-manager/cert-manager#3414).
func TestProducerWords(t *testing.T) {
	sealed := chain.APIResource{Group: "bitnami.com", Version: "v1alpha1", Resource: "sealedsecrets", Kind: "SealedSecret", Namespaced: true}
	obj := resourceObject(sealed, "web", 1)
	now := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	event := func(msg string) chain.Event {
		return chain.Event{Type: "Warning", Reason: "ErrUnsealFailed", Message: msg, Count: 3,
			Object: chain.ObjectRef{Kind: "SealedSecret", Name: "web"}, First: now.Add(-time.Hour), Last: now.Add(-time.Minute)}
	}
	for _, tt := range []struct {
		name   string
		events []chain.Event
		cause  chain.CauseID
	}{
		{name: "unseal failed", events: []chain.Event{event("Failed to unseal: no key could decrypt secret (<REDACTED>,<REDACTED>)")}, cause: decode.SealedSecretUndecryptable},
		{name: "other words", events: []chain.Event{event("Failed to unseal: something else")}, cause: decode.ResourceNotReconciled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &chain.Snapshot{Kind: "SealedSecret", Namespace: "shop", Name: "web", API: &sealed, Object: obj, Events: tt.events, Now: now}
			v := Walk(s, Options{}).Verdict
			if v.Link != chain.LinkStatus || v.Cause != tt.cause {
				t.Fatalf("verdict %s at %q cause %q (%s), want status, %s", v.Health, v.Link, v.Cause, v.Summary, tt.cause)
			}
		})
	}
}

func TestProducerConditionWords(t *testing.T) {
	requests := chain.APIResource{Group: "cert-manager.io", Version: "v1", Resource: "certificaterequests", Kind: "CertificateRequest", Namespaced: true}
	obj := resourceObject(requests, "game2048-tls-brv2v", 1,
		[4]string{"Approved", "True", "cert-manager.io", "Certificate request has been approved by cert-manager.io"},
		[4]string{"Ready", "False", "Pending", `Referenced "Issuer" not found: issuer.cert-manager.io "letsencrypt-prod" not found`})
	s := &chain.Snapshot{Kind: "CertificateRequest", Namespace: "shop", Name: "game2048-tls-brv2v", API: &requests, Object: obj,
		Now: time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)}
	v := Walk(s, Options{}).Verdict
	if v.Link != chain.LinkStatus || v.Cause != decode.CertificateIssuerNotFound {
		t.Fatalf("verdict %s at %q cause %q (%s), want status, CertificateIssuerNotFound", v.Health, v.Link, v.Cause, v.Summary)
	}
}
