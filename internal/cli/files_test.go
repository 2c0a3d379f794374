package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

func snapshotPath(name string) string {
	return filepath.Join("..", "..", "testdata", "snapshots", name)
}

// TestFilesNeedNoCluster walks a capture with no kubeconfig at all and gets
// the verdict the fixture table promises.
func TestFilesNeedNoCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("KUBECTL_CHAIN_LAB_HOME", t.TempDir())
	r := runWith(t, nil, "-f", snapshotPath("quota-exceeded.yaml"), "-o", "json")
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if r.code != ExitBroken || rep.Verdict.Cause != "QuotaExceeded" || rep.Requests != 0 {
		t.Errorf("code %d, verdict %+v, requests %d", r.code, rep.Verdict, rep.Requests)
	}
}

func TestFilesFromStdin(t *testing.T) {
	data, err := os.ReadFile(snapshotPath("healthy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	streams, in, out, _ := genericiooptions.NewTestIOStreams()
	in.Write(data)
	o := NewOptions(streams)
	err = ExecuteWith(context.Background(), o, []string{"deploy/web", "-f", "-", "-o", "json"})
	var rep chain.Report
	decodeJSON(t, out.String(), &rep)
	if ExitCode(err) != ExitHealthy || rep.Verdict.Health != chain.Healthy {
		t.Errorf("code %d, health %s", ExitCode(err), rep.Verdict.Health)
	}
}

func TestFilesAll(t *testing.T) {
	// The fixtures all hold shop/web: move the paused one to staging.
	data, err := os.ReadFile(snapshotPath("paused.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(t.TempDir(), "paused-staging.yaml")
	os.WriteFile(staging, bytes.ReplaceAll(data, []byte("namespace: shop"), []byte("namespace: staging")), 0o600)
	r := runWith(t, nil, "--all", "-A", "-f", snapshotPath("healthy.yaml"), "-f", staging, "-o", "json")
	var l chain.ReportList
	decodeJSON(t, r.stdout, &l)
	if len(l.Items) != 2 || l.Health != chain.Broken || r.code != ExitBroken {
		t.Errorf("code %d, %d items, health %s", r.code, len(l.Items), l.Health)
	}
}

func TestFilesErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o600)
	garbage := filepath.Join(dir, "notes.txt")
	os.WriteFile(garbage, []byte("{this is not yaml"), 0o600)
	svcEvents := filepath.Join(dir, "svc-events.yaml")
	os.WriteFile(svcEvents, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: test}\nspec: {ports: [{port: 80}], type: LoadBalancer}\n---\n"+
		"apiVersion: v1\nkind: Event\nmetadata: {name: test.1}\ninvolvedObject: {kind: Service, name: test}\nreason: CreatingLoadBalancer\nmessage: Creating load balancer\n"), 0o600)
	podsOnly := filepath.Join(dir, "pods.yaml")
	os.WriteFile(podsOnly, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"), 0o600)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-f", filepath.Join(dir, "missing.yaml")}, "reading " + filepath.Join(dir, "missing.yaml")},
		{[]string{"-f", empty}, empty + ": empty input"},
		{[]string{"-f", garbage}, garbage + ": not YAML or JSON"},
		{[]string{"-f", podsOnly}, "no workload in"},
		{[]string{"-f", svcEvents}, "no workload in"},              // a Service and its events, named nothing
		{[]string{"svc/api", "-f", svcEvents}, `no Service "api"`}, // named, but not there
		{[]string{"deploy/api", "-f", snapshotPath("healthy.yaml")}, `no Deployment "api" in the input`},
		{[]string{"-f", snapshotPath("healthy.yaml"), "--wait"}, "cannot be used with -f"},
	}
	for _, tt := range tests {
		r := runWith(t, nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: code %d, stderr %q; want %d and one line containing %q", tt.args, r.code, r.stderr, ExitUsage, tt.want)
		}
	}
}

// TestFilesEveryKind: captures of a StatefulSet, a Job, a CronJob and a
// Deployment, taken from the lab, are walked together with -A: one report
// per workload in the summary table, each named with its kind, and the
// worst verdict's exit code.
func TestFilesEveryKind(t *testing.T) {
	var args []string
	for _, name := range []string{"sts-healthy", "job-backoff-limit", "cj-suspended", "healthy"} {
		args = append(args, "-f", filepath.Join("..", "..", "testdata", "captures", name+".yaml"))
	}
	r := runWith(t, nil, append(args, "-A", "--color", "never")...)
	if r.code != ExitBroken {
		t.Errorf("exit %d, want %d", r.code, ExitBroken)
	}
	for _, want := range []string{
		"sc-cj-suspended       cronjob/web      broken   stored      CronJobSuspended",
		"sc-healthy            deployment/web   healthy",
		"sc-job-backoff-limit  job/web          broken   completion  BackoffLimitExceeded",
		"sc-sts-healthy        statefulset/web  healthy",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, r.stdout)
		}
	}
	// And one of them named with its kind.
	r = runWith(t, nil, append(args, "sts/web", "-n", "sc-sts-healthy", "-o", "json")...)
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if rep.Kind != chain.KindStatefulSet || rep.Verdict.Health != chain.Healthy || len(rep.Links) != 8 || rep.Links[3].ID != chain.LinkClaims {
		t.Errorf("sts/web: %s %s with %d links:\n%s", rep.Kind, rep.Verdict.Health, len(rep.Links), r.stdout)
	}
}

// TestFilesOddWorkloads: objects a user may hand over that the API server
// would not have stored (no selector, no status) are judged or refused
// with a message, never a crash.
func TestFilesOddWorkloads(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web, namespace: shop}\n",
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: web, namespace: shop}\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: web, namespace: shop}\n",
		"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: web, namespace: shop}\n",
	} {
		file := filepath.Join(t.TempDir(), "odd.yaml")
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runWith(t, nil, "-f", file, "-o", "json")
		if r.code == ExitHealthy || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", doc, r.code, r.stdout, r.stderr)
		}
	}
}

// TestFilesAdoptNamespace: objects that name no namespace (manifests as
// users keep them, for kubectl apply -f FILE -n NS) are in the namespace
// asked, not "not in the input".
func TestFilesAdoptNamespace(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "snapshots", "image-not-found.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "namespace: shop" {
			kept = append(kept, l)
		}
	}
	file := filepath.Join(t.TempDir(), "no-namespace.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	r := runWith(t, nil, "deploy/web", "-f", file, "-n", "shop", "-o", "json")
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if r.code != ExitBroken || rep.Verdict.Cause != "ImageNotFound" || rep.Namespace != "shop" {
		t.Errorf("exit %d, %s in %q; want %d, ImageNotFound in shop\n%s", r.code, rep.Verdict.Cause, rep.Namespace, ExitBroken, r.stderr)
	}
}

// TestFilesOnePod: one pod's YAML, as kubectl get pod X -o yaml prints it,
// is walked from the pod when its ReplicaSet is not in the file, and
// standard error says what to add to walk its workload.
func TestFilesOnePod(t *testing.T) {
	var pod *corev1.Pod
	for _, o := range fixtureObjects(t, "image-not-found.yaml") {
		if p, ok := o.(*corev1.Pod); ok && pod == nil {
			pod = p
		}
	}
	pod.APIVersion, pod.Kind = "v1", "Pod"
	data, err := yaml.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	r := runWith(t, nil, "pod/"+pod.Name, "-f", file, "-o", "json")
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	owner := metav1.GetControllerOf(pod)
	if r.code != ExitBroken || rep.Kind != chain.KindPod || rep.Verdict.Cause != "ImageNotFound" ||
		!strings.Contains(r.stderr, "its owner replicaset/"+owner.Name+" is not in the input") || !strings.Contains(r.stderr, "kubectl get replicaset "+owner.Name+" -o yaml") {
		t.Errorf("exit %d, %s %s; want %d, the pod walked to ImageNotFound, and what to add\n%s", r.code, rep.Kind, rep.Verdict.Cause, ExitBroken, r.stderr)
	}
}

// TestFilesServiceAndEvents: a Service and its events, as kubectl get svc
// NAME -o yaml and kubectl get events print them, with no workload: the
// Service named is walked (kubernetes#20855's LoadBalancer the service
// controller of 1.2 could not create).
func TestFilesServiceAndEvents(t *testing.T) {
	file := filepath.Join(t.TempDir(), "svc-events.yaml")
	os.WriteFile(file, []byte(`apiVersion: v1
kind: Service
metadata: {name: test, namespace: default, creationTimestamp: "2026-01-01T12:00:00Z"}
spec: {ports: [{port: 80}], type: LoadBalancer}
---
apiVersion: v1
kind: Event
metadata: {name: test.1, namespace: default}
involvedObject: {kind: Service, name: test, namespace: default}
type: Warning
reason: CreatingLoadBalancerFailed
count: 40
firstTimestamp: "2026-01-01T12:00:10Z"
lastTimestamp: "2026-01-01T12:10:00Z"
message: 'Error creating load balancer (will retry): Failed to create load balancer for service default/test: requested ip 8.8.8.8 is neither static nor assigned to LB acdb2b00aceb011e5857642010af0001: <nil>'
`), 0o600)
	r := runWith(t, nil, "svc/test", "-f", file, "-o", "json")
	var rep chain.Report
	decodeJSON(t, r.stdout, &rep)
	if rep.Verdict.Link != chain.LinkEndpoints || rep.Verdict.Cause != "LoadBalancerFailed" {
		t.Errorf("code %d, verdict %+v, stderr %q", r.code, rep.Verdict, r.stderr)
	}
}
