package paste

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The inputs of these tests are testdata/describe/*.txt: what kubectl
// describe prints, by kubectl's own describers (k8s.io/kubectl v0.37.2
// pkg/describe) over chosen objects whose messages are real; how they
// were printed, and the source of each message, is in
// testdata/describe/gen/main.go. Two are printed by the same describers
// from the lab's captures instead (testdata/generic/gen, whose stub API
// serves the captured object): ingressclasses.txt, the IngressClasses of
// testdata/captures/ing-backend-missing.yaml, and sidecar-pod.txt, the
// first pod of sidecar-crashloop.yaml.

func readDescribe(t *testing.T, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", "describe", n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// sumOf is what a test checks of each object a paste built, one line an
// object, by kind.
func sumOf(r *Result) []string {
	var out []string
	sel := func(ls *metav1.LabelSelector) string { return metav1.FormatLabelSelector(ls) }
	for _, s := range r.StatefulSets {
		c := s.Spec.VolumeClaimTemplates[0]
		out = append(out, fmt.Sprintf("StatefulSet %s/%s sel=%s replicas=%d/%d service=%s policy=%s strategy=%s partition=%d claim=%s:%s:%s:%v image=%s",
			s.Namespace, s.Name, sel(s.Spec.Selector), s.Status.Replicas, *s.Spec.Replicas, s.Spec.ServiceName, s.Spec.PodManagementPolicy,
			s.Spec.UpdateStrategy.Type, *s.Spec.UpdateStrategy.RollingUpdate.Partition, c.Name, *c.Spec.StorageClassName,
			c.Spec.Resources.Requests.Storage(), c.Spec.AccessModes, s.Spec.Template.Spec.Containers[0].Image))
	}
	for _, d := range r.DaemonSets {
		out = append(out, fmt.Sprintf("DaemonSet %s/%s sel=%s desired=%d current=%d updated=%d available=%d unavailable=%d image=%s",
			d.Namespace, d.Name, sel(d.Spec.Selector), d.Status.DesiredNumberScheduled, d.Status.CurrentNumberScheduled,
			d.Status.UpdatedNumberScheduled, d.Status.NumberAvailable, d.Status.NumberUnavailable, d.Spec.Template.Spec.Containers[0].Image))
	}
	for _, j := range r.Jobs {
		owner := ""
		if ref := metav1.GetControllerOf(&j); ref != nil {
			owner = ref.Kind + "/" + ref.Name
		}
		var conds []string
		for _, c := range j.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
		}
		out = append(out, fmt.Sprintf("Job %s/%s owner=%s sel=%s completions=%d parallelism=%d backoff=%d active=%d ready=%d succeeded=%d failed=%d conditions=%v",
			j.Namespace, j.Name, owner, sel(j.Spec.Selector), *j.Spec.Completions, *j.Spec.Parallelism, *j.Spec.BackoffLimit,
			j.Status.Active, *j.Status.Ready, j.Status.Succeeded, j.Status.Failed, conds))
	}
	for _, c := range r.CronJobs {
		out = append(out, fmt.Sprintf("CronJob %s/%s schedule=%q policy=%s suspend=%t history=%d/%d last=%t active=%d image=%s",
			c.Namespace, c.Name, c.Spec.Schedule, c.Spec.ConcurrencyPolicy, *c.Spec.Suspend, *c.Spec.SuccessfulJobsHistoryLimit,
			*c.Spec.FailedJobsHistoryLimit, c.Status.LastScheduleTime != nil, len(c.Status.Active), c.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image))
	}
	for _, s := range r.Services {
		var ports []string
		for _, p := range s.Spec.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d->%s/%s", p.Name, p.Port, p.TargetPort.String(), p.Protocol))
		}
		out = append(out, fmt.Sprintf("Service %s/%s type=%s selector=%v ip=%s families=%v ports=%v affinity=%s",
			s.Namespace, s.Name, s.Spec.Type, s.Spec.Selector, s.Spec.ClusterIP, s.Spec.IPFamilies, ports, s.Spec.SessionAffinity))
	}
	for _, s := range r.EndpointSlices {
		var eps []string
		for _, e := range s.Endpoints {
			ep := fmt.Sprintf("%v ready=%t", e.Addresses, *e.Conditions.Ready)
			if e.TargetRef != nil {
				ep += fmt.Sprintf(" %s/%s node=%s zone=%s", e.TargetRef.Kind, e.TargetRef.Name, *e.NodeName, *e.Zone)
			}
			eps = append(eps, ep)
		}
		out = append(out, fmt.Sprintf("EndpointSlice %s/%s service=%s type=%s ports=%s:%d endpoints=%v",
			s.Namespace, s.Name, s.Labels["kubernetes.io/service-name"], s.AddressType, *s.Ports[0].Name, *s.Ports[0].Port, eps))
	}
	for _, in := range r.Ingresses {
		var rules []string
		for _, ru := range in.Spec.Rules {
			for _, p := range ru.HTTP.Paths {
				rules = append(rules, fmt.Sprintf("%s%s->%s:%d", ru.Host, p.Path, p.Backend.Service.Name, p.Backend.Service.Port.Number))
			}
		}
		out = append(out, fmt.Sprintf("Ingress %s/%s class=%s address=%s rules=%v", in.Namespace, in.Name, *in.Spec.IngressClassName,
			in.Status.LoadBalancer.Ingress[0].IP, rules))
	}
	for _, ic := range r.IngressClasses {
		out = append(out, fmt.Sprintf("IngressClass %s controller=%s default=%s", ic.Name, ic.Spec.Controller, ic.Annotations["ingressclass.kubernetes.io/is-default-class"]))
	}
	for _, n := range r.Nodes {
		var conds, taints []string
		for _, c := range n.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
		}
		for _, t := range n.Spec.Taints {
			taints = append(taints, t.ToString())
		}
		out = append(out, fmt.Sprintf("Node %s unschedulable=%t taints=%v allocatable=%s/%s/%s kubelet=%s conditions=%v",
			n.Name, n.Spec.Unschedulable, taints, n.Status.Allocatable.Cpu(), n.Status.Allocatable.Memory(), n.Status.Allocatable.Pods(),
			n.Status.NodeInfo.KubeletVersion, conds))
	}
	for _, c := range r.Claims {
		out = append(out, fmt.Sprintf("PersistentVolumeClaim %s/%s phase=%s class=%s volume=%q finalizers=%v mode=%s",
			c.Namespace, c.Name, c.Status.Phase, *c.Spec.StorageClassName, c.Spec.VolumeName, c.Finalizers, *c.Spec.VolumeMode))
	}
	for _, q := range r.Quotas {
		var res []string
		for k, h := range q.Status.Hard {
			u := q.Status.Used[k]
			res = append(res, fmt.Sprintf("%s=%s/%s", k, u.String(), h.String()))
		}
		sort.Strings(res)
		out = append(out, fmt.Sprintf("ResourceQuota %s/%s %v", q.Namespace, q.Name, res))
	}
	for _, n := range r.Namespaces {
		out = append(out, fmt.Sprintf("Namespace %s phase=%s", n.Name, n.Status.Phase))
	}
	for _, l := range r.LimitRanges {
		for _, it := range l.Spec.Limits {
			out = append(out, fmt.Sprintf("LimitRange %s %s default=%s defaultRequest=%s max=%d", l.Namespace, it.Type, it.Default.Cpu(), it.DefaultRequest.Cpu(), len(it.Max)))
		}
	}
	return out
}

// TestDescribeKinds reads kubectl describe of each kind into the object
// it was printed from, as far as describe prints it.
func TestDescribeKinds(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{{
		file: "statefulset.txt",
		want: []string{"StatefulSet shop/db sel=app=db replicas=1/3 service=db policy=OrderedReady strategy=RollingUpdate partition=0 claim=data:fast:10Gi:[ReadWriteOnce] image=postgres:17.2"},
	}, {
		file: "daemonset.txt",
		want: []string{"DaemonSet shop/node-exporter sel=app=node-exporter desired=2 current=2 updated=2 available=1 unavailable=1 image=quay.io/prometheus/node-exporter:v1.9.1"},
	}, {
		// The Job's Failed condition, which describe does not print, from
		// the Job controller's final event.
		file: "cronjob.txt",
		want: []string{
			`Job shop/nightly-29262360 owner=CronJob/nightly sel=batch.kubernetes.io/controller-uid=Job-nightly-29262360 completions=1 parallelism=1 backoff=2 active=0 ready=0 succeeded=0 failed=3 conditions=[Failed=True BackoffLimitExceeded "Job has reached the specified backoff limit"]`,
			`CronJob shop/nightly schedule="0 2 * * *" policy=Forbid suspend=false history=3/1 last=true active=0 image=registry.example.com/shop/report:1.9`,
		},
	}, {
		file: "job-quota.txt",
		want: []string{
			"Job shop/job-test-4 owner= sel=batch.kubernetes.io/controller-uid=Job-job-test-4 completions=1 parallelism=1 backoff=6 active=0 ready=0 succeeded=0 failed=0 conditions=[]",
			"ResourceQuota shop/default [pods=9/9]",
		},
	}, {
		file: "service.txt",
		want: []string{"Service shop/web type=ClusterIP selector=map[app:web] ip=10.96.41.17 families=[IPv4] ports=[http:80->8080/TCP] affinity=None"},
	}, {
		file: "endpointslice.txt",
		want: []string{"EndpointSlice shop/web-8kq2d service=web type=IPv4 ports=http:8080 endpoints=[[10.244.2.7] ready=false Pod/web-7c9d8f6b5-x2x7q node=node-2 zone=zone-b]"},
	}, {
		// Endpoints, read as the slice of its Service it mirrors.
		file: "endpoints.txt",
		want: []string{"EndpointSlice shop/web service=web type=IPv4 ports=http:8080 endpoints=[[10.244.2.7] ready=false]"},
	}, {
		file: "ingress.txt",
		want: []string{"Ingress shop/web class=nginx address=172.18.0.240 rules=[shop.example.com/->web:80]"},
	}, {
		// Every class there is: kubectl describe ingressclass lists them
		// all (cluster-scoped).
		file: "ingressclasses.txt",
		want: []string{"IngressClass sc-ing-backend-missing-traefik controller=traefik.io/ingress-controller default=",
			"IngressClass sc-ing-class-no-controller-lab controller=lab.kubectl-chain.io/no-such-controller default=",
			"IngressClass traefik controller=traefik.io/ingress-controller default="},
	}, {
		// kubectl 1.32's against the lab (testdata/get/README.md).
		file: "ingressclass-default.txt",
		want: []string{"IngressClass traefik controller=traefik.io/ingress-controller default=true"},
	}, {
		file: "node-unknown.txt",
		want: []string{`Node node-2 unschedulable=false taints=[node.kubernetes.io/unreachable:NoExecute node.kubernetes.io/unreachable:NoSchedule] allocatable=4/16393152Ki/110 kubelet=v1.37.2 conditions=[MemoryPressure=Unknown NodeStatusUnknown "Kubelet stopped posting node status." DiskPressure=Unknown NodeStatusUnknown "Kubelet stopped posting node status." PIDPressure=Unknown NodeStatusUnknown "Kubelet stopped posting node status." Ready=Unknown NodeStatusUnknown "Kubelet stopped posting node status."]`},
	}, {
		file: "node-runtime-down.txt",
		want: []string{`Node node-3 unschedulable=true taints=[node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/unschedulable:NoSchedule] allocatable=4/16393152Ki/110 kubelet=v1.37.2 conditions=[MemoryPressure=False KubeletHasSufficientMemory "kubelet has sufficient memory available" DiskPressure=False KubeletHasNoDiskPressure "kubelet has no disk pressure" PIDPressure=False KubeletHasSufficientPID "kubelet has sufficient PID available" Ready=False KubeletNotReady "container runtime is down"]`},
	}, {
		file: "pvc.txt",
		want: []string{`PersistentVolumeClaim shop/data-db-0 phase=Pending class=fast volume="" finalizers=[kubernetes.io/pvc-protection] mode=Filesystem`},
	}, {
		file: "resourcequota.txt",
		want: []string{"ResourceQuota shop/namespace-quota [limits.cpu=6/6 limits.memory=12Gi/12Gi pods=6/20]"},
	}, {
		// The quota and limit range sections of a namespace.
		file: "namespace.txt",
		want: []string{"ResourceQuota shop/namespace-quota [limits.cpu=6/6 limits.memory=12Gi/12Gi pods=6/20]", "Namespace shop phase=Active",
			"LimitRange shop Container default=500m defaultRequest=100m max=0"},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := Parse(readDescribe(t, tt.file))
			if diff := cmp.Diff(tt.want, sumOf(r)); diff != "" {
				t.Errorf("objects (-want +got):\n%s\nnotes %q", diff, r.Notes)
			}
		})
	}
}

// TestDescribeSidecar: describe pod does not print an init container's
// restartPolicy; one that crash-loops while the app container runs is a
// native sidecar (a classic init container that fails holds the app
// containers back), and a completed one beside it is not.
func TestDescribeSidecar(t *testing.T) {
	text := readDescribe(t, "sidecar-pod.txt")
	r := Parse(text)
	if len(r.Pods) != 1 || len(r.Pods[0].Spec.InitContainers) != 1 {
		t.Fatalf("pods %v", r.Pods)
	}
	if rp := r.Pods[0].Spec.InitContainers[0].RestartPolicy; rp == nil || *rp != "Always" {
		t.Errorf("init container proxy, crash-looping beside a running app container: restartPolicy %v, want Always", rp)
	}
	// The same pod with its init container completed: a classic one.
	done := strings.Replace(text, "    State:          Terminated\n      Reason:       Error\n      Exit Code:    1",
		"    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0", 1)
	done = strings.Replace(done, "    Restart Count:  3", "    Restart Count:  0", 1)
	if done == text {
		t.Fatal("the fixture no longer has the init container's State and Restart Count lines this test rewrites")
	}
	r = Parse(done)
	if rp := r.Pods[0].Spec.InitContainers[0].RestartPolicy; rp != nil {
		t.Errorf("init container completed with exit code 0 and no restart: restartPolicy %v, want none (a classic init container)", *rp)
	}
	// Waiting app containers (the pod initializing): nothing is inferred.
	waiting := strings.Replace(text, "    State:          Running\n      Started:      Sat, 05 Dec 2026 02:40:02 +0000",
		"    State:          Waiting\n      Reason:       PodInitializing", 1)
	if waiting == text {
		t.Fatal("the fixture no longer has the app container's Running state this test rewrites")
	}
	if rp := Parse(waiting).Pods[0].Spec.InitContainers[0].RestartPolicy; rp != nil {
		t.Errorf("no app container runs: restartPolicy %v, want none", *rp)
	}
}

// TestGetIngressClasses reads kubectl get ingressclass: each class's
// controller, and "(default)" after the default one's name. The text is
// kubectl 1.32's against the lab (testdata/get/README.md).
func TestGetIngressClasses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "get", "ingressclasses.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := Parse(string(data))
	var got []string
	for _, ic := range r.IngressClasses {
		got = append(got, ic.Name+" "+ic.Spec.Controller+" default="+ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass])
	}
	want := []string{"ing-class-no-controller-lab lab.kubectl-chain.io/no-such-controller default=", "traefik traefik.io/ingress-controller default=true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classes (-want +got):\n%s\nnotes %q", diff, r.Notes)
	}
	if !slices.Contains(r.Forms, "kubectl get ingressclasses") {
		t.Errorf("forms %q, want kubectl get ingressclasses", r.Forms)
	}
}

// TestDescribeNodeListsPods: a pod of a get pods row, whose node the row
// does not show, is on the node whose describe lists it.
func TestDescribeNodeListsPods(t *testing.T) {
	r := Parse("NAME                  READY   STATUS    RESTARTS   AGE\nweb-7c9d8f6b5-x2x7q   0/1     Running   0          90m\n\n" + readDescribe(t, "node-unknown.txt"))
	if len(r.Pods) != 1 || r.Pods[0].Spec.NodeName != "node-2" || hasNote(r, "runs on a node the paste does not show") {
		t.Errorf("pods %v, notes %q", r.Pods, r.Notes)
	}
}

// TestScheduleAnchor: a paste's ages count back from its newest absolute
// time, unless a CronJob's "Created job NAME-MINUTES" event says more: the
// Job is named for the minute it was scheduled, and the event, seen an
// age ago, came at or after it. cronjob.txt's Job is renamed for the
// minute of its Last Schedule Time, 19:04; its creation event is 50m old.
func TestScheduleAnchor(t *testing.T) {
	text := readDescribe(t, "cronjob.txt")
	r := Parse(text)
	if want := time.Date(2026, 12, 6, 19, 4, 38, 0, time.UTC); !r.Now.Equal(want) {
		t.Fatalf("now %v, want the Last Schedule Time %v (the Job's name is no minute near it)", r.Now, want)
	}
	minute := time.Date(2026, 12, 6, 19, 4, 0, 0, time.UTC).Unix() / 60
	r = Parse(strings.ReplaceAll(text, "nightly-29262360", fmt.Sprintf("nightly-%d", minute)))
	if want := time.Date(2026, 12, 6, 19, 54, 0, 0, time.UTC); !r.Now.Equal(want) {
		t.Errorf("now %v, want %v: the Job of 19:04 was created 50m ago", r.Now, want)
	}
}

// TestDescribeKindsCut: each describe cut short is read as far as it
// goes, and the cut is named.
func TestDescribeKindsCut(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "describe", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "ingressclass") {
			// Five lines a class: cut in half, Name, Labels and
			// Annotations say nothing of the kind.
			continue
		}
		t.Run(name, func(t *testing.T) {
			text := readDescribe(t, name)
			// The first describe only, cut after its first half.
			first, _, _ := strings.Cut(text, "\n\n\nName:")
			lines := strings.Split(first, "\n")
			cut := strings.Join(lines[:len(lines)/2+1], "\n")
			r := Parse(cut)
			if len(r.Forms) == 0 || strings.Contains(r.Forms[0], "not read") {
				t.Fatalf("forms %q", r.Forms)
			}
			if !hasNote(r, "is cut after") && !hasNote(r, "is cut in its Events") && !strings.Contains(r.Forms[0], "resourcequota") && !strings.Contains(r.Forms[0], "namespace") {
				t.Errorf("%s: no cut named: %q", r.Forms[0], r.Notes)
			}
		})
	}
}

// TestReplicaFailureWithoutItsEvent: describe prints a ReplicaFailure
// condition without its message, which the paste takes from the
// ReplicaSet's FailedCreate events. Without those events (not pasted, or
// not written yet: a busy controller manager's events come late) the
// condition is left out, on the ReplicaSet and the Deployment: its message
// is unknown, and an empty one would read as a webhook's wordless denial.
func TestReplicaFailureWithoutItsEvent(t *testing.T) {
	full := readDescribe(t, "deployment-quota.txt")
	var cut []string
	for _, l := range strings.Split(full, "\n") {
		if !strings.Contains(l, "FailedCreate  ") {
			cut = append(cut, l)
		}
	}
	failures := func(r *Result) (msgs []string) {
		for _, rs := range r.ReplicaSets {
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure {
					msgs = append(msgs, "rs:"+c.Message)
				}
			}
		}
		for _, d := range r.Deployments {
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentReplicaFailure {
					msgs = append(msgs, "deploy:"+c.Message)
				}
			}
		}
		return msgs
	}
	got := failures(Parse(full))
	if len(got) != 2 || !strings.Contains(got[0], "exceeded quota: namespace-quota") || got[0][len("rs:"):] != got[1][len("deploy:"):] {
		t.Errorf("with its event: ReplicaFailure %q, want the ReplicaSet's and the Deployment's, with the event's error", got)
	}
	if got := failures(Parse(strings.Join(cut, "\n"))); len(got) != 0 {
		t.Errorf("without its event: ReplicaFailure %q, want none", got)
	}
}
