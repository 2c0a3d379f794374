package capture

// Merge adds another bundle's objects, so several files (-f a.yaml -f
// b.yaml) read as one capture.
func (b *Bundle) Merge(o *Bundle) {
	b.ix = nil
	b.Deployments = append(b.Deployments, o.Deployments...)
	b.StatefulSets = append(b.StatefulSets, o.StatefulSets...)
	b.DaemonSets = append(b.DaemonSets, o.DaemonSets...)
	b.Jobs = append(b.Jobs, o.Jobs...)
	b.CronJobs = append(b.CronJobs, o.CronJobs...)
	b.Revisions = append(b.Revisions, o.Revisions...)
	b.Claims = append(b.Claims, o.Claims...)
	b.Nodes = append(b.Nodes, o.Nodes...)
	b.ReplicaSets = append(b.ReplicaSets, o.ReplicaSets...)
	b.Pods = append(b.Pods, o.Pods...)
	b.Events = append(b.Events, o.Events...)
	b.Services = append(b.Services, o.Services...)
	b.EndpointSlices = append(b.EndpointSlices, o.EndpointSlices...)
	b.ServicesRead = b.ServicesRead || o.ServicesRead
	b.pasted = b.pasted || o.pasted
	b.described = b.described || o.described
	b.nodesListed = b.nodesListed || o.nodesListed
	b.servicesNotFound = append(b.servicesNotFound, o.servicesNotFound...)
	if b.Target.Name == "" {
		b.Target = o.Target
	}
	b.Policies = append(b.Policies, o.Policies...)
	b.Ingresses = append(b.Ingresses, o.Ingresses...)
	b.IngressClasses = append(b.IngressClasses, o.IngressClasses...)
	b.Gateways = append(b.Gateways, o.Gateways...)
	b.GatewayClasses = append(b.GatewayClasses, o.GatewayClasses...)
	b.Routes = append(b.Routes, o.Routes...)
	for k, n := range o.Skipped {
		b.Skipped[k] += n
	}
	b.Others = append(b.Others, o.Others...)
	b.Objects = append(b.Objects, o.Objects...)
	b.Undecoded = append(b.Undecoded, o.Undecoded...)
	if b.objects == 0 {
		b.Lone = o.Lone
	} else if o.objects > 0 {
		b.Lone = nil
	}
	b.objects += o.objects
	b.Rollouts = append(b.Rollouts, o.Rollouts...)
	b.CloneSets = append(b.CloneSets, o.CloneSets...)
	b.Autoscalers = append(b.Autoscalers, o.Autoscalers...)
	if b.API == nil {
		b.API = o.API
	}
	if o.CapturedAt.After(b.CapturedAt) {
		b.CapturedAt = o.CapturedAt
	}
}
