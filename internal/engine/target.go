package engine

import (
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

// workloadKinds are the targets walked as they are named.
var workloadKinds = map[string]chain.Kind{
	kindDeployment: chain.KindDeployment, kindStatefulSet: chain.KindStatefulSet, kindDaemonSet: chain.KindDaemonSet,
	kindJob: chain.KindJob, kindCronJob: chain.KindCronJob, kindRollout: chain.KindRollout,
	kindService: chain.KindService, kindIngress: chain.KindIngress,
	kindGateway: chain.KindGateway, kindHTTPRoute: chain.KindHTTPRoute, kindGRPCRoute: chain.KindGRPCRoute, kindTLSRoute: chain.KindTLSRoute,
}

// resourceTypes are the spellings of each kind that kubectl itself accepts
// (short name, singular, plural, with group and version). They are matched
// locally: resolving them through discovery would cost a round trip on
// every run.
var resourceTypes = moreTypes(map[string]string{
	"deploy": kindDeployment, "deployment": kindDeployment, "deployments": kindDeployment,
	"deploy.apps": kindDeployment, "deployment.apps": kindDeployment, "deployments.apps": kindDeployment,
	"deployment.v1.apps": kindDeployment, "deployments.v1.apps": kindDeployment,
	"po": kindPod, "pod": kindPod, "pods": kindPod, "pod.v1": kindPod, "pods.v1": kindPod,
	"rs": kindReplicaSet, "replicaset": kindReplicaSet, "replicasets": kindReplicaSet,
	"rs.apps": kindReplicaSet, "replicaset.apps": kindReplicaSet, "replicasets.apps": kindReplicaSet,
	"replicaset.v1.apps": kindReplicaSet, "replicasets.v1.apps": kindReplicaSet,
	"sts": kindStatefulSet, "statefulset": kindStatefulSet, "statefulsets": kindStatefulSet,
	"sts.apps": kindStatefulSet, "statefulset.apps": kindStatefulSet, "statefulsets.apps": kindStatefulSet,
	"statefulset.v1.apps": kindStatefulSet, "statefulsets.v1.apps": kindStatefulSet,
	"ds": kindDaemonSet, "daemonset": kindDaemonSet, "daemonsets": kindDaemonSet,
	"ds.apps": kindDaemonSet, "daemonset.apps": kindDaemonSet, "daemonsets.apps": kindDaemonSet,
	"daemonset.v1.apps": kindDaemonSet, "daemonsets.v1.apps": kindDaemonSet,
	"job": kindJob, "jobs": kindJob, "job.batch": kindJob, "jobs.batch": kindJob,
	"job.v1.batch": kindJob, "jobs.v1.batch": kindJob,
	"cj": kindCronJob, "cronjob": kindCronJob, "cronjobs": kindCronJob,
	"cj.batch": kindCronJob, "cronjob.batch": kindCronJob, "cronjobs.batch": kindCronJob,
	"cronjob.v1.batch": kindCronJob, "cronjobs.v1.batch": kindCronJob,
	"svc": kindService, "service": kindService, "services": kindService, "service.v1": kindService, "services.v1": kindService,
	"ing": kindIngress, "ingress": kindIngress, "ingresses": kindIngress,
	"ing.networking.k8s.io": kindIngress, "ingress.networking.k8s.io": kindIngress, "ingresses.networking.k8s.io": kindIngress,
	"ingress.v1.networking.k8s.io": kindIngress, "ingresses.v1.networking.k8s.io": kindIngress,
})

// moreTypes adds the spellings of the kinds that come with CRDs: the
// Gateway API's, as kubectl accepts them once their CRDs are installed (gtw
// is the CRD's short name for Gateways), and Argo Rollouts' Rollout (ro is
// its CRD's short name).
func moreTypes(types map[string]string) map[string]string {
	for kind, short := range map[string]string{kindGateway: "gtw", kindHTTPRoute: "", kindGRPCRoute: "", kindTLSRoute: ""} {
		plural := chain.Kind(kind).Plural()
		for _, s := range []string{short, kind, plural} {
			if s == "" {
				continue
			}
			types[s] = kind
			types[s+"."+chain.GatewayGroup] = kind
			types[s+".v1."+chain.GatewayGroup] = kind
		}
	}
	for _, s := range []string{"ro", kindRollout, "rollouts"} {
		types[s] = kindRollout
		types[s+"."+chain.RolloutGroup] = kindRollout
		types[s+".v1alpha1."+chain.RolloutGroup] = kindRollout
	}
	return types
}

// KindOf resolves a resource type as typed, "" when unknown.
func KindOf(typ string) string { return resourceTypes[strings.ToLower(typ)] }

// DefaultKind is what a bare NAME names.
const DefaultKind = kindDeployment

// ParseTargets reads the arguments the way kubectl reads "TYPE/NAME",
// "TYPE NAME..." and, here, a bare "NAME" meaning a Deployment.
func ParseTargets(args []string) ([]Target, error) {
	switch len(args) {
	case 0:
		return nil, UsageErrorf("name a workload: kubectl chain deploy/NAME, sts/NAME, ds/NAME, job/NAME or cj/NAME (a bare NAME is a Deployment), one of its pods, pod/NAME, or what sends it traffic, svc/NAME, ing/NAME, gateway/NAME, httproute/NAME, grpcroute/NAME or tlsroute/NAME, an Argo Rollout, rollout/NAME, or any other kind the cluster serves as KIND/NAME (certificate/web-tls)")
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
	what := map[string]string{kindDeployment: "Deployment", kindStatefulSet: "StatefulSet", kindDaemonSet: "DaemonSet",
		kindJob: "Job", kindCronJob: "CronJob", kindPod: "pod", kindReplicaSet: "ReplicaSet", kindService: "Service", kindIngress: "Ingress", kindRollout: "Rollout", kindResource: "object"}[kind]
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
