package chain

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Producer is a well-known kind whose objects write a Secret pods wait
// for: when a Secret does not exist, the object meant to write it, and
// its condition, is the cause one link up.
type Producer struct {
	Group string
	Kind  string
	// Writes is the name of the Secret an object of the kind writes.
	Writes func(u *unstructured.Unstructured) string
	// Attempts, when set, is the kind (same group and version) of the
	// objects the producer makes, one per try, whose conditions say why
	// a try failed: cert-manager's CertificateRequests.
	Attempts *APIResource
	// Steps, when set, are the kinds (Group and Kind, served where
	// discovery says) of the objects an attempt makes on its way, each
	// controlled by the attempt or by another step: a CertificateRequest's
	// ACME Order and the Order's Challenges, whose status says at which
	// step an issuance waits or failed.
	Steps []APIResource
}

// ACMEGroup is cert-manager's ACME API group.
const ACMEGroup = "acme.cert-manager.io"

// AttemptsOf is where the attempts of a producer served at api are served.
func (p Producer) AttemptsOf(api APIResource) *APIResource {
	if p.Attempts == nil {
		return nil
	}
	a := *p.Attempts
	a.Group, a.Version = api.Group, api.Version
	return &a
}

// Producers are the kinds looked for, each read only where the cluster
// serves it: cert-manager's Certificate writes spec.secretName;
// external-secrets' ExternalSecret writes spec.target.name, else its own
// name; Bitnami's SealedSecret writes spec.template.metadata.name, else
// its own name.
var Producers = []Producer{
	{Group: "cert-manager.io", Kind: "Certificate", Writes: func(u *unstructured.Unstructured) string {
		return nestedString(u, "spec", "secretName")
	}, Attempts: &APIResource{Resource: "certificaterequests", Kind: "CertificateRequest", Namespaced: true},
		Steps: []APIResource{{Group: ACMEGroup, Kind: "Order"}, {Group: ACMEGroup, Kind: "Challenge"}}},
	{Group: "external-secrets.io", Kind: "ExternalSecret", Writes: func(u *unstructured.Unstructured) string {
		return orName(u, nestedString(u, "spec", "target", "name"))
	}},
	{Group: "bitnami.com", Kind: "SealedSecret", Writes: func(u *unstructured.Unstructured) string {
		return orName(u, nestedString(u, "spec", "template", "metadata", "name"))
	}},
}

// ProducerOf is the producer entry of an object's kind, nil for another.
func ProducerOf(api APIResource) *Producer {
	for i := range Producers {
		if Producers[i].Group == api.Group && Producers[i].Kind == api.Kind {
			return &Producers[i]
		}
	}
	return nil
}

// IsStep says objects of api are a producer's Steps.
func IsStep(api APIResource) bool {
	for _, p := range Producers {
		for _, st := range p.Steps {
			if st.Group == api.Group && st.Kind == api.Kind {
				return true
			}
		}
	}
	return false
}

// Produced is an object of a producer kind that writes a Secret the
// workload's pods wait for.
type Produced struct {
	API    APIResource
	Object *unstructured.Unstructured
	Secret string
	// Attempts are the objects the producer made for it (Producer.Attempts)
	// and controls, newest first.
	Attempts []*unstructured.Unstructured
	// Missing names what the object refers to that does not exist (a
	// Certificate's Issuer, IssuerOf), when it was read.
	Missing []string
	// Steps are the objects its newest attempt controls, directly or
	// through another of them (Producer.Steps: the CertificateRequest's
	// Order and the Order's Challenges).
	Steps []*unstructured.Unstructured
}

// AttachAttempts gives each produced object the attempts of candidates
// it controls, newest first.
func AttachAttempts(produced []Produced, candidates []*unstructured.Unstructured) {
	for i := range produced {
		for _, a := range candidates {
			if metav1.IsControlledBy(a, produced[i].Object) {
				produced[i].Attempts = append(produced[i].Attempts, a)
			}
		}
		a := produced[i].Attempts
		sort.SliceStable(a, func(x, y int) bool {
			return a[y].GetCreationTimestamp().Time.Before(a[x].GetCreationTimestamp().Time)
		})
	}
}

// AttachSteps gives each produced object the candidates its newest
// attempt controls, directly or through a candidate it controls.
func AttachSteps(produced []Produced, candidates []*unstructured.Unstructured) {
	for i := range produced {
		if len(produced[i].Attempts) == 0 || produced[i].Attempts[0].GetUID() == "" {
			continue // an attempt without a UID controls nothing one can tell
		}
		owners := map[types.UID]bool{produced[i].Attempts[0].GetUID(): true}
		taken := make([]bool, len(candidates))
		for grew := true; grew; {
			grew = false
			for j, c := range candidates {
				if ref := metav1.GetControllerOf(c); !taken[j] && ref != nil && owners[ref.UID] {
					taken[j], grew = true, true
					owners[c.GetUID()] = true
					produced[i].Steps = append(produced[i].Steps, c)
				}
			}
		}
	}
}

func nestedString(u *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, fields...)
	return s
}

func orName(u *unstructured.Unstructured, s string) string {
	if s == "" {
		return u.GetName()
	}
	return s
}
