package engine

import (
	"slices"
	"strings"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Target is one thing named (on the command line, in an MCP call): a
// workload, or a pod or ReplicaSet whose workload is walked.
type Target struct {
	Kind string // "deployment" ... "cronjob", "pod", "replicaset", ... or "resource" (any other kind)
	Name string
	// Type is a resource's type as typed ("certificate",
	// "certificates.cert-manager.io"), which discovery resolves into API.
	Type string
	API  *chain.APIResource
}

const (
	kindDeployment  = "deployment"
	kindStatefulSet = "statefulset"
	kindDaemonSet   = "daemonset"
	kindJob         = "job"
	kindCronJob     = "cronjob"
	kindPod         = "pod"
	kindReplicaSet  = "replicaset"
	kindService     = "service"
	kindIngress     = "ingress"
	kindGateway     = "gateway"
	kindHTTPRoute   = "httproute"
	kindGRPCRoute   = "grpcroute"
	kindTLSRoute    = "tlsroute"
	kindRollout     = "rollout"
	// kindResource is any other type: resolved through discovery, walked
	// as a resource (chain.IsResource).
	kindResource = "resource"
)

// workloadKinds are the targets walked as they are named: every kind of
// the kinds table but a pod, which is walked through its controller.
var workloadKinds = func() map[string]chain.Kind {
	out := map[string]chain.Kind{}
	for _, r := range chain.KindTable() {
		if r.Kind != chain.KindPod {
			out[r.Resource()] = r.Kind
		}
	}
	return out
}()

// replicaSet is spelled as kubectl spells it; a ReplicaSet named is walked
// as its Deployment.
var replicaSet = chain.KindRow{Kind: "ReplicaSet", Group: "apps", Version: "v1", Short: "rs"}

// KindOf resolves a resource type as typed, "" when unknown. The spellings
// are kubectl's (short name, singular, plural, with group and version), as
// the kinds table gives them. They are matched locally: resolving them
// through discovery would cost a round trip on every run.
func KindOf(typ string) string {
	if k, ok := chain.KindBySpelling(typ); ok {
		return k.Resource()
	}
	if slices.Contains(replicaSet.Spellings(), strings.ToLower(typ)) {
		return kindReplicaSet
	}
	return ""
}

// DefaultKind is what a bare NAME names.
const DefaultKind = kindDeployment

// ParseTargets reads the arguments the way kubectl reads "TYPE/NAME",
// "TYPE NAME..." and, here, a bare "NAME" meaning a Deployment.
func ParseTargets(args []string) ([]Target, error) {
	switch len(args) {
	case 0:
		return nil, UsageErrorf("name a workload: kubectl chain deploy/NAME, sts/NAME, ds/NAME, job/NAME or cj/NAME (a bare NAME is a Deployment), one of its pods, pod/NAME, or what sends it traffic, svc/NAME, ing/NAME, gateway/NAME, httproute/NAME, grpcroute/NAME or tlsroute/NAME, an Argo Rollout, rollout/NAME, an OpenKruise CloneSet, clone/NAME, or any other kind the cluster serves as KIND/NAME (certificate/web-tls)")
	case 1:
		t, err := parseOne(args[0])
		return []Target{t}, err
	}
	if kind := KindOf(args[0]); kind != "" && !strings.Contains(args[0], "/") {
		var out []Target
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, UsageErrorf("%q: after the type %q give plain names, or use TYPE/NAME for every argument", a, args[0])
			}
			if err := validName(kind, a); err != nil {
				return nil, err
			}
			out = append(out, Target{Kind: kind, Name: a})
		}
		return out, nil
	}
	var out []Target
	for _, a := range args {
		t, err := parseOne(a)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseOne(arg string) (Target, error) {
	typ, name, found := strings.Cut(arg, "/")
	if !found {
		if KindOf(arg) != "" {
			return Target{}, UsageErrorf("%q is a resource type: name the object too, as %s/NAME or %s NAME", arg, arg, arg)
		}
		return Target{Kind: kindDeployment, Name: arg}, validName(kindDeployment, arg)
	}
	kind := KindOf(typ)
	if kind == "" {
		if typ == "" {
			return Target{}, UsageErrorf("%q names no type: use TYPE/NAME, as deploy/web", arg)
		}
		// Any other type is the cluster's to resolve (resolveResources).
		return Target{Kind: kindResource, Name: name, Type: typ}, validName(kindResource, name)
	}
	return Target{Kind: kind, Name: name}, validName(kind, name)
}

// validName checks a name the way the API server would, so a typo fails here
// with a clear message instead of as a confusing 404.
func validName(kind, name string) error {
	what := map[string]string{kindPod: "pod", kindReplicaSet: "ReplicaSet", kindResource: "object"}[kind]
	if k, ok := workloadKinds[kind]; ok {
		what = string(k)
	}
	if name == "" {
		return UsageErrorf("empty %s name: use %s/NAME", what, kind)
	}
	if len(name) > 253 {
		return UsageErrorf("%s name %q is longer than 253 characters", what, name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (r == '-' || r == '.') && i > 0 && i < len(name)-1
		if !ok {
			return UsageErrorf("%q is not a valid %s name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", name, what)
		}
	}
	return nil
}
