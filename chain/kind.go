package chain

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kind is the kind of workload a chain is walked for. The values are the API
// kinds and part of the output schema.
type Kind string

// The workload kinds kubectl chain walks.
const (
	KindDeployment  Kind = "Deployment"
	KindStatefulSet Kind = "StatefulSet"
	KindDaemonSet   Kind = "DaemonSet"
	KindJob         Kind = "Job"
	KindCronJob     Kind = "CronJob"
	// KindPod is a pod no controller owns, walked alone.
	KindPod Kind = "Pod"
)

// Serves says the kind's chain goes on past ready to the Services.
func Serves(k Kind) bool {
	r, ok := RowOf(k)
	return ok && r.Serves()
}

// Kinds are the built-in workload kinds, in the order a table of several
// lists them.
var Kinds = KindsOf(ClassWorkload, true)

// Resource is the kind's lower-case singular, as kubectl names objects
// ("statefulset/db").
func (k Kind) Resource() string { return strings.ToLower(string(k)) }

// ParseRef reads a Ref as String writes it ("service/web").
func ParseRef(s string) (Ref, bool) {
	res, name, ok := strings.Cut(s, "/")
	if !ok || name == "" {
		return Ref{}, false
	}
	for _, r := range kindTable {
		if r.Resource() == res {
			return Ref{Kind: r.Kind, Name: name}, true
		}
	}
	return Ref{}, false
}

// Plural is the kind's API resource ("statefulsets", "ingresses").
func (k Kind) Plural() string {
	if r := k.Resource(); strings.HasSuffix(r, "s") {
		return r + "es"
	}
	return k.Resource() + "s"
}

// Ref names one workload of a namespace, or one object of a resource kind
// (IsResource) with its API group.
type Ref struct {
	Kind Kind
	Name string
	// Group is a resource kind's API group ("cert-manager.io"), empty for
	// the kinds kubectl chain knows and for the core group.
	Group string
}

// String is kubectl's TYPE/NAME ("deployment/web",
// "certificate.cert-manager.io/web").
func (r Ref) String() string { return fmt.Sprintf("%s/%s", r.typeName(), r.Name) }

// Ref is the workload the snapshot was read for.
func (s *Snapshot) Ref() Ref {
	if s.API != nil {
		return ResourceRef(*s.API, s.Name)
	}
	return Ref{Kind: s.KindOf(), Name: s.Name}
}

// KindOf is the snapshot's kind; a snapshot that names none (every capture
// written before kinds existed) is a Deployment's.
func (s *Snapshot) KindOf() Kind {
	if s.Kind == "" {
		return KindDeployment
	}
	return s.Kind
}

// ChainOf is the kind's chain: its links in the order they run. Pods,
// node-assignment, containers, ready and serving are the same steps for
// every kind whose pods should keep running; a Job's pods should finish
// instead, and serve no Service.
func ChainOf(k Kind) []LinkID {
	if r, ok := RowOf(k); ok {
		return r.Links
	}
	return resourceChain
}

// AllLinks is every link ID in the order chains run them, so findings of
// several kinds sort alike.
var AllLinks = []LinkID{LinkStored, LinkRollout, LinkStatus, LinkOwned, LinkSchedule, LinkReplicaSet, LinkRevision, LinkNodes, LinkPods, LinkClaims,
	LinkNodeAssignment, LinkContainers, LinkReady, LinkServing, LinkCompletion,
	LinkClass, LinkGateway, LinkParents, LinkBackends, LinkSelector, LinkWorkloads, LinkEndpoints}

// NewestJob is the newest of a CronJob's Jobs by creation (names break
// ties), nil with none: the CronJob's chain goes on through it.
func NewestJob(jobs []batchv1.Job) *batchv1.Job {
	var newest *batchv1.Job
	for i := range jobs {
		j := &jobs[i]
		if newest == nil || newest.CreationTimestamp.Before(&j.CreationTimestamp) ||
			newest.CreationTimestamp.Equal(&j.CreationTimestamp) && j.Name > newest.Name {
			newest = j
		}
	}
	return newest
}

// LastFinishedJob is the newest of a CronJob's Jobs that completed or
// failed, nil with none: while a new run is under way, the last one that
// ended says how the CronJob's runs end.
func LastFinishedJob(jobs []batchv1.Job) *batchv1.Job {
	var done []batchv1.Job
	for _, j := range jobs {
		if JobFinished(&j) {
			done = append(done, j)
		}
	}
	if n := NewestJob(done); n != nil {
		for i := range jobs {
			if jobs[i].UID == n.UID && jobs[i].Name == n.Name {
				return &jobs[i]
			}
		}
	}
	return nil
}

// JobFinished says the Job completed or failed.
func JobFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == "True" {
			return true
		}
	}
	return false
}

// CronJobRunPods keeps, of a namespace's Job pods, those of the CronJob's
// newest Job and of its last finished one: the two runs its chain reads.
func CronJobRunPods(jobs []batchv1.Job, pods []corev1.Pod) []corev1.Pod {
	var runs []*batchv1.Job
	for _, j := range []*batchv1.Job{NewestJob(jobs), LastFinishedJob(jobs)} {
		if j != nil {
			runs = append(runs, j)
		}
	}
	var out []corev1.Pod
	for i := range pods {
		for _, j := range runs {
			if metav1.IsControlledBy(&pods[i], j) {
				out = append(out, pods[i])
				break
			}
		}
	}
	return out
}

// JobPodsSelector selects every Job's pods of a namespace: the Job
// controller labels them job-name (and, since Kubernetes 1.27, also
// batch.kubernetes.io/job-name).
const JobPodsSelector = "job-name"

// PodTemplate is the template of the workload's pods (a bare pod's own
// metadata and spec), nil when the workload was not found.
func (s *Snapshot) PodTemplate() *corev1.PodTemplateSpec {
	w := s.Workload()
	for _, r := range kindTable {
		if t := r.Template(w); t != nil {
			return t
		}
	}
	return nil
}
