package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/lab/registry"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// serveImageRef is where the e2e pushes the serve image in the lab's
// registry, and what the pod names.
var serveImageRef = registry.Ref("kubectl-chain:e2e")

// serveInCluster is issue 24's end to end: the image serve-image builds
// (internal/tools), pushed to the lab's registry, runs as the pod `kubectl
// chain serve manifests` describes, on the real node, with the RBAC those
// manifests grant; its metrics, scraped, agree with the command line's
// verdicts for every scenario TestRealNode played there.
//
// Two changes to the printed manifests, both the lab's: the pod uses the
// host's network (the lab's API server listens on loopback and the node
// runs no Service proxy), so KUBERNETES_SERVICE_HOST and _PORT name the API
// server and the metrics port is a free one; and the PrometheusRule is not
// applied (the lab has no Prometheus Operator CRD).
func serveInCluster(t *testing.T, c kubernetes.Interface, kc string, spec state.Spec, pushed <-chan error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	if err := <-pushed; err != nil {
		t.Fatal(err)
	}
	t.Logf("serve image pushed %.1fs later", time.Since(start).Seconds())

	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	out, err := exec.CommandContext(ctx, chainBin, "serve", "manifests", "--image", serveImageRef).Output()
	if err != nil {
		t.Fatalf("serve manifests: %v", err)
	}
	var docs []string
	for _, doc := range strings.Split(string(out), "\n---\n") {
		switch {
		case strings.Contains(doc, "kind: PrometheusRule"):
			continue
		case strings.Contains(doc, "kind: Deployment"):
			doc = labServeDeployment(t, doc, port, spec)
		}
		docs = append(docs, doc)
	}
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubectl-chain"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	apply := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "apply", "-f", "-")
	apply.Stdin = strings.NewReader(strings.Join(docs, "\n---\n"))
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply of the serve manifests: %v\n%s", err, out)
	}
	get := func(path string) (int, string) { return httpGet("http://" + addr + path) }
	applied := time.Now()
	for code, _ := get("/readyz"); code != http.StatusOK; code, _ = get("/readyz") {
		if ctx.Err() != nil || time.Since(applied) > 5*time.Minute {
			v, _, _, _ := diagnoseAt(context.Background(), kc, "deploy/kubectl-chain", "-n", "kubectl-chain")
			t.Fatalf("the serve pod never answered /readyz on %s: kubectl chain says %+v\n%s%s", addr, v, eventLines(context.Background(), c, "kubectl-chain"), nodeNote(c))
		}
		time.Sleep(time.Second)
	}
	t.Logf("serve pod ready on the real node after %.1fs", time.Since(start).Seconds())

	// Every scenario played on the real node, in the namespaces it used.
	nss, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]scenarios.Scenario{}
	for _, sc := range scenarios.All() {
		byName[sc.Name] = sc
	}
	type workload struct {
		ns string
		sc scenarios.Scenario
	}
	var all []workload
	for _, ns := range nss.Items {
		prefix, rest, ok := strings.Cut(ns.Name, "-")
		sc, known := byName[rest]
		if !ok || !known || !strings.HasPrefix(prefix, "real") {
			continue
		}
		all = append(all, workload{ns.Name, sc})
	}
	// serve's own Deployment is a workload it watches too.
	all = append(all, workload{"kubectl-chain", scenarios.Scenario{Name: "serve", Kind: chain.KindDeployment}})
	// Each comparison waits for serve to judge between two reads; a few
	// run at once.
	var (
		agreed atomic.Int32
		wg     sync.WaitGroup
		at     = make(chan struct{}, 6)
	)
	for _, w := range all {
		wg.Add(1)
		at <- struct{}{}
		go func() {
			defer func() { <-at; wg.Done() }()
			if serveAgrees(ctx, t, kc, get, w.ns, w.sc) {
				agreed.Add(1)
			}
		}()
	}
	wg.Wait()
	compared := len(all)
	t.Logf("serve's metrics agreed with the command line on %d of %d workloads", agreed.Load(), compared)
	if compared < 10 {
		t.Errorf("only %d workloads compared: the real node's scenarios are missing", compared)
	}
}

// serveAgrees compares serve's series of the workload of namespace ns
// with the command line's verdict, up to three times: a verdict that
// changes between two reads (a grace ending) is read again.
func serveAgrees(ctx context.Context, t *testing.T, kc string, get func(string) (int, string), ns string, sc scenarios.Scenario) bool {
	t.Helper()
	name := strings.SplitN(sc.Target(), "/", 2)[1]
	if sc.Name == "serve" {
		name = "kubectl-chain"
	}
	target := strings.SplitN(sc.Target(), "/", 2)[0] + "/" + name
	var last string
	for try := 0; try < 3; try++ {
		before, _, _, err := diagnoseAt(ctx, kc, target, "-n", ns)
		if err != nil {
			t.Errorf("%s: %v", ns, err)
			return false
		}
		// serve judges within 2 s of a change (BenchmarkServe).
		time.Sleep(3 * time.Second)
		_, body := get("/metrics")
		after, _, _, err := diagnoseAt(ctx, kc, target, "-n", ns)
		if err != nil {
			t.Errorf("%s: %v", ns, err)
			return false
		}
		if before != after {
			continue
		}
		health, broken := healthSeries(body, ns)[name], brokenSeries(body, ns)[name]
		want, wantBroken := healthNumber(before.Health), ""
		if before.Health == chain.Broken {
			wantBroken = string(before.Link) + "/" + string(before.Cause)
		}
		if health == want && broken == wantBroken {
			return true
		}
		last = fmt.Sprintf("%s/%s: serve says health %q broken %q; the command line %+v", ns, name, health, broken, before)
	}
	if last == "" {
		last = fmt.Sprintf("%s/%s: the command line's verdict changed on every read", ns, name)
	}
	t.Error(last)
	return false
}

// healthNumber is kubectl_chain_workload_health's value of a health.
func healthNumber(h chain.Health) string {
	return map[chain.Health]string{chain.Healthy: "0", chain.Broken: "1", chain.Progressing: "2", chain.Unknown: "3"}[h]
}

// brokenSeries reads kubectl_chain_workload_broken_info of namespace ns:
// name -> "link/cause".
func brokenSeries(body, ns string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	label := func(l, key string) string {
		i := strings.Index(l, key+`="`)
		if i < 0 {
			return ""
		}
		v := l[i+len(key)+2:]
		return v[:strings.Index(v, `"`)]
	}
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "kubectl_chain_workload_broken_info{") || label(l, "namespace") != ns || !strings.HasSuffix(l, " 1") {
			continue
		}
		out[label(l, "name")] = label(l, "link") + "/" + label(l, "cause")
	}
	return out
}

// labServeDeployment pins the printed Deployment to the real node, on the
// host's network, its metrics on port and the API server named.
func labServeDeployment(t *testing.T, doc, port string, spec state.Spec) string {
	t.Helper()
	var d appsv1.Deployment
	if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("the printed Deployment: %v", err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	pod := &d.Spec.Template.Spec
	pod.HostNetwork = true
	pod.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	pod.NodeSelector = map[string]string{state.EngineLabel: state.EngineReal}
	ctr := &pod.Containers[0]
	for i, a := range ctr.Args {
		if a == "--listen" && i+1 < len(ctr.Args) {
			ctr.Args[i+1] = ":" + port
		}
	}
	ctr.Ports[0].ContainerPort = int32(p)
	ctr.Env = append(ctr.Env,
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: state.Host},
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: strconv.Itoa(spec.Ports.APIServer)})
	out, err := yaml.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// pushServeImage builds the serve image for linux/amd64 with serve-image
// (the program the docs tell users to run) into an OCI layout, then pushes
// it to the lab's registry, trusting the lab's CA.
func pushServeImage(ctx context.Context, dir string, spec state.Spec, l state.Layout) error {
	lab, err := moduleRoot()
	if err != nil {
		return err
	}
	root := filepath.Dir(lab)
	build := exec.CommandContext(ctx, "go", "-C", filepath.Join(root, "internal", "tools"), "run", "./cmd/serve-image",
		"-root", root, "-version", "e2e", "-platforms", "linux/amd64", "-o", dir)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("serve-image: %v\n%s", err, out)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return err
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		return fmt.Errorf("the layout's index: %v, %d manifests", err, len(m.Manifests))
	}
	inner, err := idx.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(l.Cert("ca"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	ref, err := name.ParseReference(spec.RegistryAddr() + "/kubectl-chain:e2e")
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(ref, inner, remote.WithContext(ctx), remote.WithTransport(tr)); err != nil {
		return fmt.Errorf("pushing the serve image to the lab's registry: %v", err)
	}
	return nil
}

// httpGet is a GET's status and body; 0 and "" when it could not connect.
func httpGet(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
