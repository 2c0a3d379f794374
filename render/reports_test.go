package render

import (
	"time"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// now is the fixed time of every test report.
var now = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// Messages below are copied from the component that writes them; the
// registry host is invented.
const (
	// k8s.io/kubernetes pkg/kubelet/images/image_manager.go:
	// "Failed to pull image %q: %v", the error being containerd's
	// internal/cri/server/images/image_pull.go "failed to pull and unpack image %q: %w"
	// around client/pull.go "failed to resolve reference %q: %w" around
	// core/remotes/docker/resolver.go "%s: %w" with errdefs.ErrNotFound, as
	// returned over CRI (gRPC "rpc error: code = NotFound desc = ...").
	msgFailedPull = `Failed to pull image "registry.lab.internal/web:v9": rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve reference "registry.lab.internal/web:v9": registry.lab.internal/web:v9: not found`
	// pkg/kubelet/images/image_manager.go: "Back-off pulling image %q" then
	// "%s: %s" with the previous pull error stored as "%s: %s" (ErrImagePull, message).
	msgPullBackOff = `Back-off pulling image "registry.lab.internal/web:v9": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "registry.lab.internal/web:v9": failed to resolve reference "registry.lab.internal/web:v9": registry.lab.internal/web:v9: not found`
	// pkg/kubelet/kuberuntime/kuberuntime_manager.go:
	// "back-off %s restarting failed container=%s pod=%s" with format.Pod "%s_%s(%s)".
	msgCrashState = `back-off 2m40s restarting failed container=log-shipper pod=web-6d4f8b9c7-2xkqp_prod(5f0c2d4e-8a1b-4c3d-9e7f-1a2b3c4d5e6f)`
	// pkg/kubelet/kuberuntime/kuberuntime_manager.go:
	// "Back-off restarting failed container %s in pod %s".
	msgCrashEvent = `Back-off restarting failed container log-shipper in pod web-6d4f8b9c7-2xkqp_prod(5f0c2d4e-8a1b-4c3d-9e7f-1a2b3c4d5e6f)`
	// k8s.io/apiserver pkg/admission/plugin/resourcequota/controller.go:
	// "exceeded quota: %s, requested: %s, used: %s, limited: %s" wrapped by
	// apimachinery pkg/api/errors/errors.go NewForbidden "%s %q is forbidden: %v";
	// the ReplicaSet condition (pkg/controller/replicaset/replica_set_utils.go)
	// holds the error, the event (pkg/controller/controller_utils.go) says
	// "Error creating: %v".
	msgQuota      = `pods "web-6d4f8b9c7-x2x9k" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=9, limited: cpu=10`
	msgQuotaEvent = `Error creating: pods "web-6d4f8b9c7-x2x9k" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=9, limited: cpu=10`
	// pkg/kubelet/images/image_manager.go: "Pulling image %q".
	msgPulling = `Pulling image "registry.lab.internal/web:v2"`
	// k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go:
	// "User %q cannot %s resource %q in API group %q in the namespace %q"
	// wrapped by apimachinery NewForbidden "%s is forbidden: %v".
	msgForbidden = `pods is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods" in API group "" in the namespace "prod"`
	// apimachinery pkg/api/errors/errors.go NewNotFound: "%s %q not found".
	msgNotFound = `deployments.apps "web" not found`
)

// okLinks returns the first n links of a healthy chain.
func okLinks(n int) []chain.Link {
	all := []chain.Link{
		{ID: chain.LinkStored, Status: chain.StatusOK, Summary: "generation 4 observed"},
		{ID: chain.LinkReplicaSet, Status: chain.StatusOK, Summary: "web-6d4f8b9c7 (revision 4) is current"},
		{ID: chain.LinkPods, Status: chain.StatusOK, Summary: "3/3 pods created"},
		{ID: chain.LinkNodeAssignment, Status: chain.StatusOK, Summary: "3/3 pods scheduled"},
		{ID: chain.LinkContainers, Status: chain.StatusOK, Summary: "3/3 pods running"},
		{ID: chain.LinkReady, Status: chain.StatusOK, Summary: "3/3 pods ready, rollout complete"},
	}
	return all[:n]
}

// notReached returns the links from index i on, not reached.
func notReached(from int) []chain.Link {
	var out []chain.Link
	for _, id := range chain.Links[from:] {
		out = append(out, chain.Link{ID: id, Status: chain.StatusNotReached})
	}
	return out
}

func healthyReport() *chain.Report {
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{Health: chain.Healthy, Summary: "3/3 pods ready, rollout complete"},
		Links:   okLinks(6),
		ReplicaSets: []chain.ReplicaSetSummary{
			{Name: "web-6d4f8b9c7", Revision: "4", Current: true, Desired: 3, Replicas: 3, Ready: 3, Available: 3},
		},
		Requests: 4,
	}
}

func brokenContainersReport() *chain.Report {
	pods := []string{
		"pod/web-6d4f8b9c7-2xkqp", "pod/web-6d4f8b9c7-8zvtn", "pod/web-6d4f8b9c7-h5m2c",
		"pod/web-6d4f8b9c7-m4wq7", "pod/web-6d4f8b9c7-t9d6s",
	}
	links := okLinks(4)
	links[1].Summary = "web-6d4f8b9c7 (revision 4) is current"
	links[1].Notes = []string{"old ReplicaSet web-5b7c9d8f4 (revision 3) still serves 5/5 ready pods"}
	links[2].Summary = "5/5 pods created"
	links[3].Summary = "5/5 pods scheduled"
	links = append(links, chain.Link{
		ID: chain.LinkContainers, Status: chain.StatusBroken, Summary: "0/5 pods running",
		Findings: []chain.Finding{
			{
				Cause:    chain.CauseID("ImageNotFound"),
				Summary:  `image "registry.lab.internal/web:v9" not found`,
				NextStep: "fix spec.template.spec.containers[web].image, or push registry.lab.internal/web:v9 to the registry",
				Terminal: true,
				Objects:  pods,
				Of:       5,
				Evidence: []chain.Evidence{
					{
						Source: chain.SourceContainerState, Object: pods[0],
						Field:  "status.containerStatuses[web].state.waiting",
						Reason: "ImagePullBackOff", Message: msgPullBackOff,
					},
					{
						Source: chain.SourceEvent, Object: pods[0], Type: "Warning", Reason: "Failed",
						Message: msgFailedPull, Count: 5, Last: now.Add(-40 * time.Second),
					},
				},
				Details: []chain.Detail{{Key: "container", Value: "web"}, {Key: "image", Value: "registry.lab.internal/web:v9"}},
				Since:   now.Add(-4*time.Minute - 10*time.Second),
				Repeats: 5,
			},
			{
				Cause:    chain.CauseID("CrashLoopBackOff"),
				Summary:  `container "log-shipper" exited with code 1 and is restarting`,
				NextStep: "read why it exited: kubectl logs -n prod web-6d4f8b9c7-2xkqp -c log-shipper --previous",
				Objects:  pods[:2],
				Of:       5,
				Evidence: []chain.Evidence{
					{
						Source: chain.SourceContainerState, Object: pods[0],
						Field:  "status.containerStatuses[log-shipper].state.waiting",
						Reason: "CrashLoopBackOff", Message: msgCrashState,
					},
					{
						Source: chain.SourceContainerState, Object: pods[0],
						Field:  "status.containerStatuses[log-shipper].lastState.terminated",
						Reason: "Error",
					},
					{
						Source: chain.SourceEvent, Object: pods[0], Type: "Warning", Reason: "BackOff",
						Message: msgCrashEvent, Count: 14, Last: now.Add(-3 * time.Hour),
					},
				},
				Details: []chain.Detail{{Key: "container", Value: "log-shipper"}, {Key: "exit code", Value: "1"}, {Key: "restarts", Value: "4"}},
				Repeats: 4,
			},
		},
	})
	links = append(links, chain.Link{ID: chain.LinkReady, Status: chain.StatusNotReached})
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{
			Health: chain.Broken, Link: chain.LinkContainers, Cause: chain.CauseID("ImageNotFound"),
			Summary:  `5/5 pods: image "registry.lab.internal/web:v9" not found`,
			NextStep: "fix spec.template.spec.containers[web].image, or push registry.lab.internal/web:v9 to the registry",
			Terminal: true,
		},
		Links: links,
		ReplicaSets: []chain.ReplicaSetSummary{
			{Name: "web-6d4f8b9c7", Revision: "4", Current: true, Desired: 5, Replicas: 5},
			{Name: "web-5b7c9d8f4", Revision: "3", Desired: 5, Replicas: 5, Ready: 5, Available: 5},
		},
		Change: &chain.Change{Kind: chain.ChangeTemplate, From: "3", FromName: "web-5b7c9d8f4", To: "4", ToName: "web-6d4f8b9c7",
			HealthKnown: true, Rollback: "kubectl rollout undo deploy/web -n prod --to-revision=3",
			Fields: []chain.FieldChange{
				{Field: "containers[log-shipper].args", From: `["--to","stdout"]`, To: `["--to","udp://logs:514"]`},
				{Field: "containers[web].image", From: `"registry.lab.internal/web:v3"`, To: `"registry.lab.internal/web:v9"`},
			}},
		Requests: 5,
	}
}

func quotaReport() *chain.Report {
	next := `lower spec.template.spec.containers[].resources.requests.cpu, or raise ResourceQuota "compute" (kubectl describe resourcequota -n prod compute)`
	links := okLinks(2)
	links[1].Summary = "web-6d4f8b9c7 (revision 2) is current"
	links = append(links, chain.Link{
		ID: chain.LinkPods, Status: chain.StatusBroken, Summary: "0/3 pods created",
		Findings: []chain.Finding{{
			Cause:    chain.CauseID("QuotaExceeded"),
			Summary:  `exceeded quota "compute": requested cpu=2, used cpu=9, limited cpu=10`,
			NextStep: next,
			Objects:  []string{"replicaset/web-6d4f8b9c7"},
			Evidence: []chain.Evidence{
				{
					Source: chain.SourceCondition, Object: "replicaset/web-6d4f8b9c7",
					Field: "status.conditions[ReplicaFailure]", Type: "ReplicaFailure",
					Reason: "FailedCreate", Message: msgQuota,
				},
				{
					Source: chain.SourceEvent, Object: "replicaset/web-6d4f8b9c7", Type: "Warning",
					Reason: "FailedCreate", Message: msgQuotaEvent, Count: 12, Last: now.Add(-75 * time.Second),
				},
			},
			Details: []chain.Detail{
				{Key: "quota", Value: "compute"}, {Key: "requested", Value: "cpu=2"},
				{Key: "used", Value: "cpu=9"}, {Key: "limited", Value: "cpu=10"},
			},
			Since: now.Add(-26 * time.Minute),
		}},
	})
	links = append(links, notReached(3)...)
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{
			Health: chain.Broken, Link: chain.LinkPods, Cause: chain.CauseID("QuotaExceeded"),
			Summary:  `0/3 pods created: exceeded quota "compute": requested cpu=2, used cpu=9, limited cpu=10`,
			NextStep: next,
		},
		Links: links,
		ReplicaSets: []chain.ReplicaSetSummary{
			{Name: "web-6d4f8b9c7", Revision: "2", Current: true, Desired: 3},
		},
		Requests: 5,
	}
}

func progressingReport() *chain.Report {
	pod := "pod/web-7f8c9d6b4-q8r2n"
	links := okLinks(4)
	links[1].Summary = "web-7f8c9d6b4 (revision 5) is current"
	links[1].Notes = []string{"old ReplicaSet web-6d4f8b9c7 (revision 4) still serves 3/3 ready pods"}
	links[2].Summary = "1/1 pods created"
	links[3].Summary = "1/1 pods scheduled"
	links = append(links,
		chain.Link{
			ID: chain.LinkContainers, Status: chain.StatusProgressing, Summary: "0/1 pods running",
			Findings: []chain.Finding{{
				Cause:       chain.CauseID("ImagePulling"),
				Summary:     `pulling image "registry.lab.internal/web:v2"`,
				NextStep:    "wait: the kubelet is pulling the image",
				Progressing: true,
				Objects:     []string{pod},
				Of:          1,
				Evidence: []chain.Evidence{
					{
						Source: chain.SourceContainerState, Object: pod,
						Field: "status.containerStatuses[web].state.waiting", Reason: "ContainerCreating",
					},
					{
						Source: chain.SourceEvent, Object: pod, Type: "Normal", Reason: "Pulling",
						Message: msgPulling, Count: 1, Last: now.Add(-12 * time.Second),
					},
				},
				Since: now.Add(-12 * time.Second),
			}},
		},
		chain.Link{ID: chain.LinkReady, Status: chain.StatusNotReached},
	)
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{
			Health: chain.Progressing, Link: chain.LinkContainers, Cause: chain.CauseID("ImagePulling"),
			Summary:  `1/1 pods: pulling image "registry.lab.internal/web:v2"`,
			NextStep: "wait: the kubelet is pulling the image",
		},
		Links: links,
		ReplicaSets: []chain.ReplicaSetSummary{
			{Name: "web-7f8c9d6b4", Revision: "5", Current: true, Desired: 3, Replicas: 1},
			{Name: "web-6d4f8b9c7", Revision: "4", Desired: 3, Replicas: 3, Ready: 3, Available: 3},
		},
		Requests: 5,
	}
}

func unknownReport() *chain.Report {
	next := "ask for read access to pods: kubectl auth can-i list pods -n prod"
	links := okLinks(2)
	links = append(links, chain.Link{
		ID: chain.LinkPods, Status: chain.StatusUnknown, Summary: "pods could not be listed",
		Findings: []chain.Finding{{
			Cause:    chain.CauseID("EvidenceForbidden"),
			Summary:  `cannot list pods in namespace "prod"`,
			NextStep: next,
			Evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: "pods", Message: msgForbidden}},
		}},
	})
	links = append(links, notReached(3)...)
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{
			Health: chain.Unknown, Link: chain.LinkPods, Cause: chain.CauseID("EvidenceForbidden"),
			Summary:  `cannot list pods in namespace "prod"`,
			NextStep: next,
		},
		Links: links,
		ReplicaSets: []chain.ReplicaSetSummary{
			{Name: "web-6d4f8b9c7", Revision: "4", Current: true, Desired: 3, Replicas: 3, Ready: 3, Available: 3},
		},
		Requests: 3,
	}
}

func notFoundReport() *chain.Report {
	next := "check the name and namespace: kubectl get deployments -n prod"
	links := []chain.Link{{
		ID: chain.LinkStored, Status: chain.StatusBroken, Summary: "deployment not found",
		Findings: []chain.Finding{{
			Cause:    chain.CauseID("DeploymentNotFound"),
			Summary:  `deployment "web" not found in namespace "prod"`,
			NextStep: next,
			Terminal: true,
			Objects:  []string{"deployment/web"},
			Evidence: []chain.Evidence{{Source: chain.SourceObjectStatus, Object: "deployment/web", Message: msgNotFound}},
		}},
	}}
	links = append(links, notReached(1)...)
	return &chain.Report{Kind: chain.KindDeployment,
		Schema: chain.SchemaVersion, Namespace: "prod", Name: "web", Time: now,
		Verdict: chain.Verdict{
			Health: chain.Broken, Link: chain.LinkStored, Cause: chain.CauseID("DeploymentNotFound"),
			Summary:  `deployment "web" not found in namespace "prod"`,
			NextStep: next, Terminal: true,
		},
		Links:    links,
		Requests: 1,
	}
}

// reports are the test reports by golden file name.
var reports = []struct {
	name   string
	report func() *chain.Report
}{
	{"healthy", healthyReport},
	{"broken-containers", brokenContainersReport},
	{"broken-pods-quota", quotaReport},
	{"progressing", progressingReport},
	{"unknown-forbidden", unknownReport},
	{"not-found", notFoundReport},
}
