package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	labpkg "github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
)

// handedOut are the addresses freeAddr has returned in this process.
var handedOut = struct {
	sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

// freeAddr is a loopback address nothing listens on now, chosen as the
// lab chooses its ports (labpkg.PortPicker: outside the kernel's ephemeral
// range, which other programs' binds of port 0 draw from), and one it has
// not returned before: the programs given its addresses bind them only once
// they have started, so an address handed out twice would go to the first
// to bind (prometheus lost 127.0.0.1:36169 to the second lab's serve that
// way in CI).
func freeAddr(t testing.TB) string {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 100 {
		p := labpkg.NewPortPicker()
		port, err := p.Pick()
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		if addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port)); !handedOut.addrs[addr] {
			handedOut.addrs[addr] = true
			return addr
		}
	}
	t.Fatal("no loopback port that was not handed out before in 100 tries")
	return ""
}

// healthSeries reads kubectl_chain_workload_health of namespace ns from a
// scrape: name -> value.
func healthSeries(body, ns string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "kubectl_chain_workload_health{") || !strings.Contains(l, `namespace="`+ns+`"`) {
			continue
		}
		i := strings.Index(l, `name="`)
		name := l[i+6:]
		name = name[:strings.Index(name, `"`)]
		out[name] = l[strings.LastIndex(l, " ")+1:]
	}
	return out
}

// TestServe runs kubectl-chain serve against the lab, as a process, on two
// scenarios' namespaces: its metrics agree with the command line's
// verdicts, a broken workload carries its link and cause, and when the
// broken one is fixed its health turns 0 and --events records the change.
func TestServe(t *testing.T) {
	alone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	namespaces := map[string]string{"healthy": "serve-healthy", "image-not-found": "serve-broken"}
	for name, ns := range namespaces {
		sc, err := scenarios.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := scenarios.Apply(ctx, client, sc, ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = scenarios.Delete(context.Background(), client, sc, ns) })
	}
	addr := freeAddr(t)
	cmd := exec.CommandContext(ctx, chainBin, "serve", "--namespaces", "serve-healthy,serve-broken", "--listen", addr, "--events", "--resync", "5s", "--kubeconfig", kubeconfig)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	scrape := func() string {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	// Wait until both verdicts are the command line's.
	want := map[string]string{"serve-healthy": "0", "serve-broken": "1"}
	var body string
	for {
		body = scrape()
		agree := true
		for ns, v := range want {
			got, _, _, err := diagnose(ctx, "deploy/web", "-n", ns)
			if err != nil {
				t.Fatal(err)
			}
			metric := map[string]string{"healthy": "0", "broken": "1", "progressing": "2", "unknown": "3"}[string(got.Health)]
			agree = agree && metric == v && healthSeries(body, ns)["web"] == v
		}
		if agree {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the metrics never agreed with the command line (want %v)\n%s\nstderr: %s", want, body, stderr.String())
		}
		time.Sleep(time.Second)
	}
	if !strings.Contains(body, `kubectl_chain_workload_broken_info{cause="ImageNotFound",kind="Deployment",link="containers",name="web",namespace="serve-broken"} 1`) {
		t.Errorf("no broken info series for serve-broken/web:\n%s", body)
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %v %v", resp, err)
	}

	// Fix the image: the health turns 0 (through progressing, while the
	// new pods start) and an Event says so.
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"registry.lab.internal/web:v1"}]}}}}`)
	if _, err := client.AppsV1().Deployments("serve-broken").Patch(ctx, "web", types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for healthSeries(scrape(), "serve-broken")["web"] != "0" {
		if ctx.Err() != nil {
			t.Fatalf("serve-broken/web never turned healthy in the metrics\nstderr: %s", stderr.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, l := range strings.Split(scrape(), "\n") {
		if strings.HasPrefix(l, "kubectl_chain_workload_broken_info{") && strings.Contains(l, `namespace="serve-broken"`) {
			t.Errorf("the broken info series of serve-broken/web stayed after it healed: %s", l)
		}
	}
	for {
		evs, err := client.CoreV1().Events("serve-broken").List(ctx, metav1.ListOptions{FieldSelector: "reason=ChainHealthy"})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs.Items) > 0 {
			e := evs.Items[0]
			if e.InvolvedObject.Kind != "Deployment" || e.InvolvedObject.Name != "web" || e.Source.Component != "kubectl-chain" || !strings.HasPrefix(e.Message, "kubectl chain: healthy") || !strings.Contains(e.Message, "; was ") {
				t.Errorf("the event: %+v %q", e.InvolvedObject, e.Message)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no ChainHealthy event on serve-broken/web")
		}
		time.Sleep(500 * time.Millisecond)
	}
}
