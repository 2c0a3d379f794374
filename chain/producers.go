package chain

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Producer is a well-known kind whose objects write a Secret pods wait
// for: when a Secret does not exist, the object meant to write it, and
// its condition, is the cause one link up.
type Producer struct {
	Group string
	Kind  string
	// Writes is the name of the Secret an object of the kind writes.
	Writes func(u *unstructured.Unstructured) string
}

// Producers are the kinds looked for, each read only where the cluster
// serves it: cert-manager's Certificate writes spec.secretName;
// external-secrets' ExternalSecret writes spec.target.name, else its own
// name; Bitnami's SealedSecret writes spec.template.metadata.name, else
// its own name.
var Producers = []Producer{
	{Group: "cert-manager.io", Kind: "Certificate", Writes: func(u *unstructured.Unstructured) string {
		return nestedString(u, "spec", "secretName")
	}},
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

// Produced is an object of a producer kind that writes a Secret the
// workload's pods wait for.
type Produced struct {
	API    APIResource
	Object *unstructured.Unstructured
	Secret string
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
