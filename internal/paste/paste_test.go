package paste

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The inputs are real pastes of testdata/real/pastes (their threads are
// in its index.yaml) and, where the corpus has none of a form, real
// pastes quoted here with their source.

func readPaste(t *testing.T, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "pastes", n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// podSum is what a test checks of a pod.
type podSum struct {
	Name, Namespace, Node, Phase, Owner string
	Labels                              map[string]string `json:",omitempty"`
	Containers                          []ctrSum
	Conditions                          []string `json:",omitempty"`
}

type ctrSum struct {
	Name, Image, State string
	Last               string `json:",omitempty"`
	Restarts           int32
	Ready              bool
}

func sumPod(p corev1.Pod) podSum {
	s := podSum{Name: p.Name, Namespace: p.Namespace, Node: p.Spec.NodeName, Phase: string(p.Status.Phase), Labels: p.Labels}
	if ref := metav1.GetControllerOf(&p); ref != nil {
		s.Owner = ref.Kind + "/" + ref.Name
	}
	images := map[string]string{}
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		images[c.Name] = c.Image
	}
	for _, sts := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, st := range sts {
			s.Containers = append(s.Containers, ctrSum{Name: st.Name, Image: images[st.Name], State: stateSum(st.State),
				Last: stateSum(st.LastTerminationState), Restarts: st.RestartCount, Ready: st.Ready})
		}
	}
	for _, c := range p.Status.Conditions {
		s.Conditions = append(s.Conditions, string(c.Type)+"="+string(c.Status))
	}
	return s
}

func stateSum(s corev1.ContainerState) string {
	switch {
	case s.Waiting != nil:
		return strings.TrimSpace("waiting " + s.Waiting.Reason + " " + s.Waiting.Message)
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		return fmt.Sprintf("terminated %s %d", s.Terminated.Reason, s.Terminated.ExitCode)
	}
	return ""
}

// evSum is what a test checks of an event: its object, reason, count,
// fieldPath, age (against Now) and message.
type evSum struct {
	Object, Type, Reason, FieldPath string
	Count                           int32
	Age                             string
	Message                         string
}

func sumEvents(r *Result) []evSum {
	var out []evSum
	for _, e := range r.Events {
		age := ""
		if !e.LastTimestamp.IsZero() {
			age = r.Now.Sub(e.LastTimestamp.Time).String()
		}
		out = append(out, evSum{Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name,
			Type: e.Type, Reason: e.Reason, FieldPath: e.InvolvedObject.FieldPath, Count: e.Count, Age: age, Message: e.Message})
	}
	return out
}

// TestDescribePod reads kubectl describe pod of several releases.
func TestDescribePod(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []podSum
	}{{
		// 1.8: "Created By" beside "Controlled By"; env literal values.
		name:  "kuill-1.8",
		files: []string{"kuill-83-describe-pod.txt"},
		want: []podSum{{Name: "kuill-5b7bd6c875-lsbqc", Namespace: "kube-system", Node: "kube-node-120", Phase: "Pending",
			Owner:      "ReplicaSet/kuill-5b7bd6c875",
			Labels:     map[string]string{"name": "kuill", "pod-template-hash": "1636827431", "service": "kuill"},
			Containers: []ctrSum{{Name: "kuill", Image: "mattdeboer/kuill", State: "waiting ContainerCreating"}},
			Conditions: []string{"Initialized=True"}}},
	}, {
		// Running between two OOM kills: Last State.
		name:  "oomkilled",
		files: []string{"kubernetes-98157-describe-pod.txt"},
		want: []podSum{{Name: "jumpserver-reader-589945c95c-d2nzg", Namespace: "tts-team", Node: "research.center.master.069", Phase: "Running",
			Owner:  "ReplicaSet/jumpserver-reader-589945c95c",
			Labels: map[string]string{"app": "jumpserver-reader", "pod-template-hash": "589945c95c"},
			Containers: []ctrSum{{Name: "jumpserver-reader", Image: "registry.example.com/base/openssh:v1.0.0", State: "running",
				Last: "terminated OOMKilled 137", Restarts: 21, Ready: true}}}},
	}, {
		// Cut at the top: no Name line, the pod is <pod>.
		name:  "headless",
		files: []string{"portainer-5314-describe-pod.txt"},
		want: []podSum{{Name: "<pod>", Namespace: "default", Node: "k-master", Phase: "Running",
			Owner:      "ReplicaSet/centos-new-6846f658db",
			Labels:     map[string]string{"app": "centos-new", "io.portainer.kubernetes.application.name": "centos-new", "pod-template-hash": "6846f658db"},
			Containers: []ctrSum{{Name: "centos-new", Image: "centos", State: "waiting CrashLoopBackOff", Last: "terminated Completed 0", Restarts: 6}}}},
	}, {
		// Two get pods tables and the describe of the same pod.
		name:  "get-and-describe",
		files: []string{"pluralsight-docker-ci-11-get-pods-1.txt", "pluralsight-docker-ci-11-get-pods-2.txt", "pluralsight-docker-ci-11-describe-pod.txt"},
		want: []podSum{{Name: "hello-pod", Namespace: "default", Node: "minikube", Phase: "Pending",
			Containers: []ctrSum{{Name: "hello-ctr", Image: "nigelpoultron/pluralsight-docker-ci:latest", State: "waiting ErrImagePull"}},
			Conditions: []string{"Initialized=True", "Ready=False"}}},
	}, {
		// Two describes in a row, of different releases.
		name:  "concatenated",
		files: []string{"kuill-83-describe-pod.txt", "kubernetes-98157-describe-pod.txt"},
		want: []podSum{{Name: "kuill-5b7bd6c875-lsbqc", Namespace: "kube-system", Node: "kube-node-120", Phase: "Pending",
			Owner:      "ReplicaSet/kuill-5b7bd6c875",
			Labels:     map[string]string{"name": "kuill", "pod-template-hash": "1636827431", "service": "kuill"},
			Containers: []ctrSum{{Name: "kuill", Image: "mattdeboer/kuill", State: "waiting ContainerCreating"}},
			Conditions: []string{"Initialized=True"}}, {Name: "jumpserver-reader-589945c95c-d2nzg", Namespace: "tts-team", Node: "research.center.master.069", Phase: "Running",
			Owner:  "ReplicaSet/jumpserver-reader-589945c95c",
			Labels: map[string]string{"app": "jumpserver-reader", "pod-template-hash": "589945c95c"},
			Containers: []ctrSum{{Name: "jumpserver-reader", Image: "registry.example.com/base/openssh:v1.0.0", State: "running",
				Last: "terminated OOMKilled 137", Restarts: 21, Ready: true}}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(readPaste(t, tt.files...))
			var got []podSum
			for _, p := range r.Pods {
				got = append(got, sumPod(p))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDescribePodSpec reads the spec describe prints: ports, mounts,
// volumes, node selectors, tolerations, resources.
func TestDescribePodSpec(t *testing.T) {
	r := Parse(readPaste(t, "klotho-553-describe-tail.txt"))
	if len(r.Pods) != 1 {
		t.Fatalf("%d pods", len(r.Pods))
	}
	p := r.Pods[0]
	got := struct {
		NodeSelector map[string]string
		Tolerations  []string
		Volumes      []string
	}{NodeSelector: p.Spec.NodeSelector}
	for _, tol := range p.Spec.Tolerations {
		got.Tolerations = append(got.Tolerations, fmt.Sprintf("%s %s %s %d", tol.Key, tol.Operator, tol.Effect, *tol.TolerationSeconds))
	}
	for _, v := range p.Spec.Volumes {
		got.Volumes = append(got.Volumes, fmt.Sprintf("%s projected=%t", v.Name, v.Projected != nil))
	}
	want := struct {
		NodeSelector map[string]string
		Tolerations  []string
		Volumes      []string
	}{
		NodeSelector: map[string]string{"eks.amazonaws.com/nodegroup": "private_t3_xlarge", "network_placement": "private"},
		Tolerations:  []string{"node.kubernetes.io/not-ready Exists NoExecute 300", "node.kubernetes.io/unreachable Exists NoExecute 300"},
		Volumes:      []string{"aws-iam-token projected=true", "kube-api-access-nfh62 projected=true"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	kuill := Parse(readPaste(t, "kuill-83-describe-pod.txt")).Pods[0].Spec.Containers[0]
	if diff := cmp.Diff([]string{"/certs auth-proxy-certs true", "/var/run/secrets/kubernetes.io/serviceaccount default-token-x9pm6 true"}, mounts(kuill)); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	if kuill.Ports[0].ContainerPort != 8443 || len(kuill.Env) != 3 || kuill.Env[0].Value != "8443" {
		t.Errorf("ports %v, env %v", kuill.Ports, kuill.Env)
	}
	oom := Parse(readPaste(t, "kubernetes-98157-describe-pod.txt")).Pods[0].Spec.Containers[0]
	if m := oom.Resources.Limits.Memory().String(); m != "1Gi" || oom.Ports[0].ContainerPort != 22 {
		t.Errorf("limits %v, ports %v", oom.Resources.Limits, oom.Ports)
	}
}

func mounts(c corev1.Container) []string {
	var out []string
	for _, m := range c.VolumeMounts {
		out = append(out, fmt.Sprintf("%s %s %t", m.MountPath, m.Name, m.ReadOnly))
	}
	return out
}

// TestEvents reads events: describe's of before 1.10 and since, with a
// fieldPath (1.35), rows without their title, get events without its
// header, a paste that lost its spacing.
func TestEvents(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []evSum
	}{{
		name:  "describe-before-1.10",
		files: []string{"kubernetes-37232-events-old.txt"},
		want: []evSum{
			{Object: "Pod//jenkins-master-645022479-ov9ka", Type: "Warning", Reason: "FailedScheduling", Count: 2, Age: "3m0s",
				Message: "pod (jenkins-master-645022479-ov9ka) failed to fit in any node\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-spgr): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-jitr): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-3qqu): Insufficient cpu\nfit failure on node (gke-warpdrive-default-pool-eae1f3b0-530e): Insufficient cpu"},
			{Object: "Pod//jenkins-master-645022479-ov9ka", Type: "Warning", Reason: "FailedSc", Count: 3, Age: "1m0s"},
		},
	}, {
		name:  "fieldpath-1.35",
		files: []string{"headscale-operator-123-events.txt"},
		want: []evSum{
			{Object: "Pod/headscale/headscale-sample-0", Type: "Normal", Reason: "Scheduled", Count: 1, Age: "3s", Message: "Successfully assigned headscale/headscale-sample-0 to minikube"},
			{Object: "Pod/headscale/headscale-sample-0", Type: "Normal", Reason: "Pulling", FieldPath: "spec.containers{apikey-manager}", Count: 1, Age: "3s", Message: `Pulling image "headscale-api-key"`},
			{Object: "Pod/headscale/headscale-sample-0", Type: "Warning", Reason: "Failed", FieldPath: "spec.containers{apikey-manager}", Count: 1, Age: "2s", Message: `Failed to pull image "headscale-api-key": Error response from daemon: pull access denied for headscale-api-key, repository does not exist or may require 'docker login': denied: requested access to the resource is denied`},
			{Object: "Pod/headscale/headscale-sample-0", Type: "Warning", Reason: "Failed", FieldPath: "spec.containers{apikey-manager}", Count: 1, Age: "2s", Message: "Error: ErrImagePull"},
			{Object: "Pod/headscale/headscale-sample-0", Type: "Normal", Reason: "Pulled", FieldPath: "spec.containers{headscale}", Count: 2, Age: "1s", Message: `Container image "headscale/headscale:v0.29.3" already present on machine and can be accessed by the pod`},
			{Object: "Pod/headscale/headscale-sample-0", Type: "Normal", Reason: "Created", FieldPath: "spec.containers{headscale}", Count: 2, Age: "1s", Message: "Container created"},
		},
	}, {
		name:  "lost-spacing",
		files: []string{"kubernetes-33777-events-flat.txt"},
		want: []evSum{{Object: "Pod//<pod>", Type: "Warning", Reason: "FailedScheduling", Count: 8, Age: "38s",
			Message: "0/25 nodes are available: 1 Insufficient pods, 1 PodToleratesNodeTaints, 23 Insufficient cpu."}},
	}, {
		name:  "rows-without-title",
		files: []string{"kubeblocks-619-event-rows.txt"},
		want: []evSum{
			{Object: "Pod/default/wesql-6lss5-replicasets-0", Type: "Warning", Reason: "FailedCreatePodSandBox", Count: 1, Age: "22m0s", Message: `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "1fbd04a78009306752329adc6462562b85c473dc6b3358f39d234f898d6c1f79" network for pod "wesql-6lss5-replicasets-0": networkPlugin cni failed to set up pod "wesql-6lss5-replicasets-0_default" network: add cmd: failed to assign an IP address to container`},
			{Object: "Pod/default/wesql-6lss5-replicasets-0", Type: "Normal", Reason: "SandboxChanged", Count: 12, Age: "22m0s", Message: "Pod sandbox changed, it will be killed and re-created."},
			{Object: "Pod/default/wesql-6lss5-replicasets-0", Type: "Warning", Reason: "FailedCreatePodSandBox", Count: 4, Age: "22m0s", Message: `(combined from similar events): Failed to create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "e5e58f3484bfc56fc0b2fe580d73d4142d7488d96e7efc19e65e5a962c9c2a8f" network for pod "wesql-6lss5-replicasets-0": networkPlugin cni failed to set up pod "wesql-6lss5-replicasets-0_default" network: add cmd: failed to assign an IP address to container`},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sumEvents(Parse(readPaste(t, tt.files...)))
			if len(got) > len(tt.want) {
				got = got[:len(tt.want)] // the rest: cut rows, checked elsewhere
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGetEventsCut reads kubectl get events rows whose header a paste cut,
// out of order: the pod known only by them, its owner from its
// ReplicaSet's SuccessfulCreate, its waiting state from the newest
// back-off, its image from the pull events.
func TestGetEventsCut(t *testing.T) {
	r := Parse(readPaste(t, "octarine-operator-15-get-events.txt"))
	var got []podSum
	for _, p := range r.Pods {
		got = append(got, sumPod(p))
	}
	want := []podSum{{Name: "octarine-guardrails-enforcer-5888cf98bf-xzklp", Node: "<unknown>", Phase: "Pending",
		Owner:      "ReplicaSet/octarine-guardrails-enforcer-5888cf98bf",
		Containers: []ctrSum{{Name: "#1", Image: "octarinesec/guardrails-enforcer:20.7", State: `waiting ImagePullBackOff Back-off pulling image "octarinesec/guardrails-enforcer:20.7"`}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if len(r.Events) != 7 || !hasNote(r, "starts without its header") {
		t.Errorf("%d events, notes %q", len(r.Events), r.Notes)
	}
}

// TestGetPodsAndRows reads a get pods table beside describe rows pasted
// without their title: the rows are the only pod's that is not ready,
// and its waiting container takes their message.
func TestGetPodsAndRows(t *testing.T) {
	r := Parse(readPaste(t, "aegis-293-get-pods.txt", "aegis-293-event-rows.txt"))
	var got []podSum
	for _, p := range r.Pods {
		got = append(got, sumPod(p))
	}
	want := []podSum{
		{Name: "aegis-workload-demo-54744f95f7-2zm7d", Node: "<unknown>", Phase: "Running",
			Containers: []ctrSum{{Name: "#1", State: "running", Ready: true}, {Name: "#2", State: "running", Ready: true}},
			Conditions: []string{"Ready=True"}},
		{Name: "aegis-workload-demo-76f5f7dc46-vfldl", Node: "<unknown>", Phase: "Pending",
			Containers: []ctrSum{{Name: "#1", Image: "registry.example.com/aegis-workload-demo-using-init-container:0.15.6",
				State: "waiting CreateContainerConfigError couldn't find key VALUE in Secret default/aegis-secret-aegis-workload-demo"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if !hasNote(r, "the only pod of the paste that is not running ready") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestDescribeDeployment reads kubectl describe deployment.
func TestDescribeDeployment(t *testing.T) {
	r := Parse(readPaste(t, "pulumi-kubernetes-497-describe-deploy.txt"))
	if len(r.Deployments) != 1 {
		t.Fatalf("%d deployments", len(r.Deployments))
	}
	d := r.Deployments[0]
	c := d.Spec.Template.Spec.Containers
	got := fmt.Sprintf("%s/%s sel=%s replicas=%d updated=%d total=%d available=%d unavailable=%d strategy=%s maxUnavailable=%s rev=%s template=%v containers=%s:%s:%d created=%s",
		d.Namespace, d.Name, metav1.FormatLabelSelector(d.Spec.Selector), *d.Spec.Replicas, d.Status.UpdatedReplicas, d.Status.Replicas,
		d.Status.AvailableReplicas, d.Status.UnavailableReplicas, d.Spec.Strategy.Type, d.Spec.Strategy.RollingUpdate.MaxUnavailable,
		d.Annotations["deployment.kubernetes.io/revision"], d.Spec.Template.Labels, c[0].Name, c[0].Image, c[0].Ports[0].ContainerPort,
		d.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
	want := "deployment/sbx-chartmuseum-chartmuseum sel=app=chartmuseum,release=sbx-chartmuseum replicas=1 updated=1 total=1 available=1 unavailable=0 strategy=RollingUpdate maxUnavailable=1 rev=2 template=map[app:chartmuseum release:sbx-chartmuseum] containers=chartmuseum:chartmuseum/chartmuseum:v0.8.2:8080 created=2019-03-22T07:51:54Z"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !hasNote(r, "is cut after Pod Template") {
		t.Errorf("notes %q", r.Notes)
	}
}

// rsDescribe is kubectl describe replicaset as a thread shows it, cut
// in its template by the stored copy
// (https://github.com/apecloud/kubeblocks/issues/5922; registry host
// replaced).
const rsDescribe = `kubectl describe replicaset.apps/kubeblocks-6478484cf7  -n kubeblocks-ens
Name:           kubeblocks-6478484cf7
Namespace:      kubeblocks-ens
Selector:       app.kubernetes.io/instance=kubeblocks,app.kubernetes.io/name=kubeblocks,pod-template-hash=6478484cf7
Labels:         app.kubernetes.io/instance=kubeblocks
                app.kubernetes.io/name=kubeblocks
                pod-template-hash=6478484cf7
Annotations:    deployment.kubernetes.io/desired-replicas: 1
                deployment.kubernetes.io/max-replicas: 2
                deployment.kubernetes.io/revision: 1
                meta.helm.sh/release-name: kubeblocks
                meta.helm.sh/release-namespace: kubeblocks-ens
Controlled By:  Deployment/kubeblocks
Replicas:       0 current / 1 desired
Pods Status:    0 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:           app.kubernetes.io/instance=kubeblocks
                    app.kubernetes.io/name=kubeblocks
                    pod-template-hash=6478484cf7
  Service Account:  kubeblocks
  Init Containers:
   tools:
    Image:      registry.example.com/apecloud/kubeblocks-tools:0.7.1
    Port:       <none>
    Host Port:  <none>
    Command:
      /bin/true
    Environment:  <none>
    Mounts:       <none>
   datascript:
    Image`

// TestDescribeReplicaSet reads kubectl describe replicaset.
func TestDescribeReplicaSet(t *testing.T) {
	r := Parse(rsDescribe)
	if len(r.ReplicaSets) != 1 {
		t.Fatalf("%d replicasets", len(r.ReplicaSets))
	}
	rs := r.ReplicaSets[0]
	owner := metav1.GetControllerOf(&rs)
	init := rs.Spec.Template.Spec.InitContainers
	got := fmt.Sprintf("%s/%s owner=%s/%s current=%d desired=%d sa=%s init=%s:%s:%v,%s rev=%s",
		rs.Namespace, rs.Name, owner.Kind, owner.Name, rs.Status.Replicas, *rs.Spec.Replicas, rs.Spec.Template.Spec.ServiceAccountName,
		init[0].Name, init[0].Image, init[0].Command, init[1].Name, rs.Annotations["deployment.kubernetes.io/revision"])
	want := "kubeblocks-ens/kubeblocks-6478484cf7 owner=Deployment/kubeblocks current=0 desired=1 sa=kubeblocks init=tools:registry.example.com/apecloud/kubeblocks-tools:0.7.1:[/bin/true],datascript rev=1"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !hasNote(r, "replicaset/kubeblocks-6478484cf7 is controlled by deployment/kubeblocks, which is not in the paste") {
		t.Errorf("notes %q", r.Notes)
	}
}

// getPodsWide is kubectl get pods -o wide as a thread shows it
// (https://github.com/galexrt/k8s-vagrant-multi-node/issues/35).
const getPodsWide = `[sakhtar@new-host k8s-vagrant-multi-node]$ kubectl get po -n kube-system -o wide
NAME                             READY   STATUS              RESTARTS   AGE   IP              NODE     NOMINATED NODE   READINESS GATES
coredns-fb8b8dccf-vrwpg          0/1     ContainerCreating   0          10m   <none>          master   <none>           <none>
coredns-fb8b8dccf-xzrcz          0/1     ContainerCreating   0          10m   <none>          master   <none>           <none>
etcd-master                      1/1     Running             0          10m   192.168.26.10   master   <none>           <none>
kube-apiserver-master            1/1     Running             0          10m   192.168.26.10   master   <none>           <none>`

// TestGetPodsWide reads kubectl get pods -o wide: node, IP, age.
func TestGetPodsWide(t *testing.T) {
	r := Parse(getPodsWide)
	var got []string
	for _, p := range r.Pods {
		got = append(got, fmt.Sprintf("%s node=%s ip=%s phase=%s age=%s %s", p.Name, p.Spec.NodeName, p.Status.PodIP, p.Status.Phase,
			r.Now.Sub(p.CreationTimestamp.Time), stateSum(p.Status.ContainerStatuses[0].State)))
	}
	want := []string{
		"coredns-fb8b8dccf-vrwpg node=master ip= phase=Pending age=10m0s waiting ContainerCreating",
		"coredns-fb8b8dccf-xzrcz node=master ip= phase=Pending age=10m0s waiting ContainerCreating",
		"etcd-master node=master ip=192.168.26.10 phase=Running age=10m0s running",
		"kube-apiserver-master node=master ip=192.168.26.10 phase=Running age=10m0s running",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
}

// TestGetNodes reads kubectl get nodes; the rows follow the printer's
// columns (k8s.io/kubernetes pkg/printers/internalversion, nodes).
func TestGetNodes(t *testing.T) {
	r := Parse("NAME     STATUS                        ROLES           AGE   VERSION\n" +
		"node-1   Ready                         control-plane   12d   v1.37.2\n" +
		"node-2   NotReady,SchedulingDisabled   <none>          3d    v1.37.2\n")
	var got []string
	for _, n := range r.Nodes {
		got = append(got, fmt.Sprintf("%s ready=%s unschedulable=%t", n.Name, n.Status.Conditions[0].Status, n.Spec.Unschedulable))
	}
	if diff := cmp.Diff([]string{"node-1 ready=True unschedulable=false", "node-2 ready=False unschedulable=true"}, got); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}

// TestNotKubectl: prose and logs hold nothing Parse reads.
func TestNotKubectl(t *testing.T) {
	for _, in := range []string{"", "hello\nworld\n", "Error: something failed: exit 1\n", "apiVersion: v1\nkind: Pod\n"} {
		if Looks([]byte(in)) {
			t.Errorf("Looks(%q) = true", in)
		}
	}
	r := Parse("I0518 18:26:54.972753 1 event.go:211] Event(...): type: 'Warning' reason: 'FailedScheduling'\n")
	if !r.Empty() {
		t.Errorf("a log line read as %q", r.Forms)
	}
}

func hasNote(r *Result, part string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// FuzzParse starts from the real pastes of the corpus, the describe
// fixtures of every kind read (testdata/describe) and the generic
// describes (testdata/generic).
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "pastes", "*.txt"))
	describes, _ := filepath.Glob(filepath.Join("testdata", "describe", "*.txt"))
	generic, _ := filepath.Glob(filepath.Join("testdata", "generic", "*.txt"))
	for _, p := range append(append(paths, describes...), generic...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	f.Add(rsDescribe)
	f.Add(getPodsWide)
	f.Fuzz(func(t *testing.T, in string) {
		r := Parse(in) // must not panic
		for _, p := range r.Pods {
			if p.Name == "" {
				t.Errorf("a pod without a name from %q", in)
			}
		}
		_ = Looks([]byte(in))
	})
}

// TestTwoClusters: one pod described twice with another node and IP (a
// real describe, kubernetes-98157, and the same text with its Node and IP
// lines changed, as a second cluster's pod of that name would print)
// reads as a mix, and says so.
func TestTwoClusters(t *testing.T) {
	one := readPaste(t, "kubernetes-98157-describe-pod.txt")
	other := strings.NewReplacer("research.center.master.069/10.20.223.69", "worker-2/10.0.0.12", "172.31.197.4", "10.244.2.7").Replace(one)
	if other == one {
		t.Fatal("the second describe is the first")
	}
	r := Parse(one + "\n" + other)
	if len(r.Pods) != 1 || !hasNote(r, "is shown twice with different nodes (research.center.master.069 and worker-2): the paste mixes two clusters") {
		t.Errorf("%d pods, notes %q", len(r.Pods), r.Notes)
	}
	if r := Parse(one + "\n" + one); hasNote(r, "shown twice") {
		t.Errorf("the same describe twice is one pod: %q", r.Notes)
	}
}

// TestCommandNamespace: a kubectl command line pasted above its table
// gives the table's rows its namespace (get prints no NAMESPACE column
// for one), in each way kubectl takes it.
func TestCommandNamespace(t *testing.T) {
	for _, cmd := range []string{
		"$ kubectl --kubeconfig=kubeconfig -nmonitoring get po",
		"kubectl get pods -n monitoring",
		"root@host:~# kubectl get pods --namespace monitoring",
		"> kubectl --namespace=monitoring get pods",
	} {
		r := Parse(cmd + "\nNAME                   READY   STATUS    RESTARTS   AGE\nalertmanager-alert-0   0/2     Pending   0          38m\n")
		if len(r.Pods) != 1 || r.Pods[0].Namespace != "monitoring" {
			t.Errorf("%s: pods %v", cmd, r.Pods)
		}
	}
}

// TestGetClaims: kubectl get pvc rows, a claim's empty VOLUME, CAPACITY
// and STORAGECLASS cells told by the header's column starts, the
// namespace from the command line above the table (radius#8241,
// local-path-provisioner#35), and describe pvc's empty StorageClass line,
// cut after Volume, read as no class (k3s#85).
func TestGetClaims(t *testing.T) {
	var got []string
	for _, f := range []string{"radius-8241-get-pvc.txt", "local-path-provisioner-35-get-pvc.txt", "k3s-85-describe-pvc.txt"} {
		r := Parse(readPaste(t, f))
		for _, c := range r.Claims {
			class := "<nil>"
			if c.Spec.StorageClassName != nil {
				class = fmt.Sprintf("%q", *c.Spec.StorageClassName)
			}
			age := "none"
			if !c.CreationTimestamp.IsZero() {
				age = r.Now.Sub(c.CreationTimestamp.Time).String()
			}
			got = append(got, fmt.Sprintf("%s/%s %s class=%s volume=%q age=%s", c.Namespace, c.Name, c.Status.Phase, class, c.Spec.VolumeName, age))
		}
	}
	want := []string{
		`radius-system/database-database-0 Pending class="standard" volume="" age=83h0m0s`,
		`/data-redis-core-redis-ha-server-0 Pending class="" volume="" age=2m30s`,
		`default/busyboxpv Pending class="" volume="" age=none`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}
