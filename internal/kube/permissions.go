package kube

// Permission is one API permission the reader uses: the verbs on one
// resource, and why.
type Permission struct {
	Group    string
	Resource string
	Verbs    []string
	// Cluster says the resource is cluster-scoped (nodes): a Role cannot
	// grant it.
	Cluster bool
	Why     string
}

// Permissions are every verb on every resource kubectl-chain uses, and no
// more: get, list and watch only; Secrets never. TestPermissionsCoverReads
// checks that every request the reader makes is in this table.
var Permissions = []Permission{
	{Group: "apps", Resource: "deployments", Verbs: []string{"get", "list", "watch"}, Why: "the Deployments walked, listed with -l, --all, -A, followed with --wait"},
	{Group: "apps", Resource: "replicasets", Verbs: []string{"get", "list", "watch"}, Why: "a Deployment's ReplicaSets; rs/NAME"},
	{Group: "apps", Resource: "statefulsets", Verbs: []string{"get", "list", "watch"}, Why: "the StatefulSets walked"},
	{Group: "apps", Resource: "daemonsets", Verbs: []string{"get", "list", "watch"}, Why: "the DaemonSets walked"},
	{Group: "apps", Resource: "controllerrevisions", Verbs: []string{"list", "watch"}, Why: "a StatefulSet's or DaemonSet's revisions; -A and -l read them as a watch-list"},
	{Group: "batch", Resource: "jobs", Verbs: []string{"get", "list", "watch"}, Why: "the Jobs walked, and a CronJob's runs"},
	{Group: "batch", Resource: "cronjobs", Verbs: []string{"get", "list", "watch"}, Why: "the CronJobs walked"},
	{Group: "", Resource: "pods", Verbs: []string{"get", "list", "watch"}, Why: "every workload's pods; pod/NAME"},
	{Group: "", Resource: "events", Verbs: []string{"list", "watch"}, Why: "the scheduler's, kubelet's and controllers' events"},
	{Group: "", Resource: "persistentvolumeclaims", Verbs: []string{"get", "list", "watch"}, Why: "a StatefulSet's claims; the claims of pods waiting to be scheduled (why they wait); pvc/NAME; the claims a capture adds"},
	{Group: "", Resource: "resourcequotas", Verbs: []string{"list"}, Why: "the quotas a capture adds"},
	{Group: "", Resource: "services", Verbs: []string{"get", "list", "watch"}, Why: "the Services that select a workload's pods (the serving link); svc/NAME"},
	{Group: "networking.k8s.io", Resource: "networkpolicies", Verbs: []string{"list", "watch"}, Why: "the NetworkPolicies that select a served workload's pods (a note on the serving link); -A and -l read them as a watch-list"},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers", Verbs: []string{"list"}, Why: "the HorizontalPodAutoscalers of a Deployment, StatefulSet or Rollout (notes on stored when one cannot compute or scale)"},
	{Group: "networking.k8s.io", Resource: "ingresses", Verbs: []string{"get", "list", "watch"}, Why: "ing/NAME; its names for completion; -A, --all and -l judge them"},
	{Group: "networking.k8s.io", Resource: "ingressclasses", Verbs: []string{"list", "watch"}, Cluster: true, Why: "an Ingress's class and its controller (without it the class link says what it could not read); -A and -l read them as a watch-list"},
	{Group: "gateway.networking.k8s.io", Resource: "gateways", Verbs: []string{"get", "list", "watch"}, Why: "gateway/NAME; a route's parent Gateways; followed with --wait"},
	{Group: "gateway.networking.k8s.io", Resource: "httproutes", Verbs: []string{"get", "list", "watch"}, Why: "httproute/NAME; its names for completion"},
	{Group: "gateway.networking.k8s.io", Resource: "grpcroutes", Verbs: []string{"get", "list", "watch"}, Why: "grpcroute/NAME; its names for completion"},
	{Group: "gateway.networking.k8s.io", Resource: "tlsroutes", Verbs: []string{"get", "list", "watch"}, Why: "tlsroute/NAME; its names for completion"},
	{Group: "argoproj.io", Resource: "rollouts", Verbs: []string{"get", "list", "watch"}, Why: "rollout/NAME; -A, --all and a release's namespaces list them beside the Deployments; followed with --wait"},
	{Group: "cert-manager.io", Resource: "issuers", Verbs: []string{"get"}, Why: "whether the Issuer a Certificate names exists (the Certificate, and the pods waiting for its Secret)"},
	{Group: "cert-manager.io", Resource: "clusterissuers", Verbs: []string{"get"}, Cluster: true, Why: "whether the ClusterIssuer a Certificate names exists"},
	{Group: "gateway.networking.k8s.io", Resource: "gatewayclasses", Verbs: []string{"list", "watch"}, Cluster: true, Why: "a Gateway's class and whether a controller accepted it (without it the class link says what it could not read)"},
	{Group: "discovery.k8s.io", Resource: "endpointslices", Verbs: []string{"list", "watch"}, Why: "the EndpointSlices of those Services: are the ready pods ready endpoints"},
	{Group: "", Resource: "nodes", Verbs: []string{"get", "list", "watch"}, Cluster: true, Why: "which nodes should run a DaemonSet's pod; the Ready condition of a node that went away under a pod; the nodes a capture adds (without it those links say what they could not read)"},
}
