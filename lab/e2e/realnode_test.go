package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	labpkg "github.com/kubectl-chain/kubectl-chain/lab"
	"github.com/kubectl-chain/kubectl-chain/lab/realnode"
	"github.com/kubectl-chain/kubectl-chain/lab/scenarios"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// TestRealNode starts a lab with one simulated and one real node (the real
// kubelet, containerd and runc on this machine), plays every scenario the
// real engine plays on both, and compares them: the same verdict, and the
// same evidence shape (event types and reasons, Warning messages with
// names, IDs, addresses and durations masked, container state reasons).
// Where they differ the simulated kubelet is wrong. Then down must leave
// nothing of the real node on the machine.
func TestRealNode(t *testing.T) {
	heavyFirst(t)
	bin := nodePrograms(t)
	start := time.Now()
	if out, err := labAt(realDir, "up", "--nodes", "1", "--real-nodes", "1", "--node-bin", bin); err != nil {
		status, _ := labAt(realDir, "status")
		logs, _ := labAt(realDir, "logs", state.RealKubelet(state.RealNodeName(0)))
		t.Fatalf("the lab with a real node did not start: %v\n%s\n%s\n%s", err, out, status, tail(logs, 40))
	}
	t.Logf("lab with a real node up in %.1fs", time.Since(start).Seconds())
	spec, err := state.ReadSpec(state.Layout{Dir: realDir})
	if err != nil {
		t.Fatal(err)
	}
	kc := state.Layout{Dir: realDir}.Kubeconfig()
	c := clientFor(t, kc, 50)
	// The serve image (serve in the cluster, at the end) is built and
	// pushed to the lab's registry while the scenarios play.
	pushed, imageDir := make(chan error, 1), filepath.Join(t.TempDir(), "image")
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		pushed <- pushServeImage(ctx, imageDir, spec, state.Layout{Dir: realDir})
	}()
	// Every scenario pins pods to the real node: if it cannot take them
	// (a taint, a pressure condition), nothing below means anything.
	// The node lifecycle controller lifts the not-ready taint a moment
	// after the node turns Ready.
	for bad, since := realNodeUnfit(c), time.Now(); bad != ""; bad = realNodeUnfit(c) {
		if time.Since(since) > time.Minute {
			t.Fatalf("the real node cannot take pods a minute after up: %s", bad)
		}
		time.Sleep(2 * time.Second)
	}

	var mu sync.Mutex
	var rows []fidelityRow
	play := func(t *testing.T, sc scenarios.Scenario) {
		// A real kubelet on a busy machine is not deterministic (which
		// sync learns of a back-off first, how long a kill takes): a
		// scenario whose first play differs is played once more, on
		// fresh namespaces, and only what both plays show counts.
		row, problems := compareEngines(t, c, kc, sc, 1)
		if len(problems) > 0 {
			if bad := realNodeUnfit(c); bad != "" {
				// Another play would only add pods the node cannot take.
				problems = append(problems, "not played again: the real node cannot take pods: "+bad)
			} else {
				t.Logf("the first play differed; playing again:\n%s", strings.Join(problems, "\n"))
				row, problems = compareEngines(t, c, kc, sc, 2)
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
		mu.Lock()
		rows = append(rows, row)
		mu.Unlock()
	}
	t.Run("scenarios", func(t *testing.T) {
		// At most realNodePlays scenarios play at once: all thirty at
		// once (sixty namespaces, a diagnosis of each every second, the
		// sampling) starved both kubelets on CI's 2 cores, and a
		// sandbox failure showed no event on either node for a minute.
		plays := make(chan struct{}, realNodePlays)
		for _, sc := range scenarios.All() {
			if sc.RealNodeReason() != "" || sc.Exclusive {
				continue
			}
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel()
				plays <- struct{}{}
				defer func() { <-plays }()
				play(t, sc)
			})
		}
	})
	// Then, one at a time, the scenarios that change the whole node.
	for _, sc := range scenarios.All() {
		if sc.RealNodeReason() == "" && sc.Exclusive && sc.TaintNodes == nil {
			t.Run("exclusive/"+sc.Name, func(t *testing.T) { play(t, sc) })
		}
	}
	checkFidelityTable(t, rows)
	t.Run("serve in the cluster", func(t *testing.T) { serveInCluster(t, c, kc, spec, pushed) })

	t.Run("down leaves nothing", func(t *testing.T) {
		if out, err := labAt(realDir, "down"); err != nil {
			t.Fatalf("down: %v\n%s", err, out)
		}
		if left := labpkg.RealNodeLeftovers(spec, state.Layout{Dir: realDir}); len(left) > 0 {
			t.Errorf("down left on the machine:\n  %s", strings.Join(left, "\n  "))
		}
		if _, err := os.Stat(realDir); err == nil {
			t.Errorf("down left the state directory %s", realDir)
		}
	})
}

// realNodePlays is how many scenarios TestRealNode plays at once.
const realNodePlays = 6

// nodePrograms skips without root, else builds the real nodes' programs
// beside the lab binary and returns their directory.
func nodePrograms(tb testing.TB) string {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("real nodes need root (cgroups, mounts, network namespaces); run the tests as root to compare the simulated kubelet with the real one")
	}
	bin := filepath.Join(filepath.Dir(labBin), "nodebin")
	if err := buildNodePrograms(bin); err != nil {
		tb.Fatal(err)
	}
	return bin
}

// buildNodePrograms builds containerd, its shim, runc (with seccomp), the
// CNI plugins and chain-workload into dir.
func buildNodePrograms(dir string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmds := [][]string{
		{"go", "build", "-C", filepath.Join(root, "nodebin"), "-tags", "seccomp", "-o", dir + "/", "tool"},
		{"go", "build", "-o", filepath.Join(dir, "chain-workload"), "./cmd/chain-workload"},
	}
	for _, args := range cmds {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if args[len(args)-1] == "./cmd/chain-workload" {
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s\n(%s)", strings.Join(args, " "), err, out, realnode.BuildHint)
		}
	}
	return nil
}

// fidelityRow is one scenario played on both engines.
type fidelityRow struct {
	Scenario  string
	Simulated verdict
	Real      verdict
	Equal     bool
}

// compareEngines applies sc pinned to the simulated node and to the real
// one (play try of it, in namespaces of its own), waits for both verdicts,
// lets back-offs repeat, and compares; it returns what differed.
func compareEngines(t *testing.T, c kubernetes.Interface, kc string, sc scenarios.Scenario, try int) (fidelityRow, []string) {
	ctx, cancel := context.WithTimeout(context.Background(), sc.Deadline+settle+time.Minute)
	defer cancel()
	want := verdict{Health: sc.Health, Link: sc.Link, Cause: sc.Cause}
	row := fidelityRow{Scenario: sc.Name}
	nss := map[string]string{state.EngineSimulated: "sim-" + sc.Name, state.EngineReal: "real-" + sc.Name}
	if try > 1 {
		nss = map[string]string{state.EngineSimulated: fmt.Sprintf("sim%d-%s", try, sc.Name), state.EngineReal: fmt.Sprintf("real%d-%s", try, sc.Name)}
	}
	var problems []string
	for engine, ns := range nss {
		if err := scenarios.ApplyWith(ctx, c, sc, ns, scenarios.Options{Engine: engine}); err != nil {
			t.Fatal(err)
		}
		if sc.Later > 0 {
			go func() {
				if err := scenarios.ApplyLater(ctx, c, sc, ns, scenarios.Options{Engine: engine}); err != nil {
					t.Logf("later step on %s: %v", engine, err)
				}
			}()
		}
	}
	start := time.Now()
	got := map[string]verdict{}
	// Container states are sampled four times a second all along: which
	// one a snapshot catches is a matter of timing. A state seen in eight
	// samples or more (it lasted two seconds) must show on the other node
	// too; a shorter one is a flash whose catch is luck (the
	// CrashLoopBackOff the status shows between a back-off's end and the
	// restart the next relist sees, longer or shorter as the node's status
	// writes queue).
	states := map[string]map[string]int{state.EngineSimulated: {}, state.EngineReal: {}}
	var statesMu sync.Mutex
	sampling, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for sampling.Err() == nil {
			for engine, ns := range nss {
				for _, l := range containerStates(sampling, t, c, ns) {
					statesMu.Lock()
					states[engine][l]++
					statesMu.Unlock()
				}
			}
			select {
			case <-sampling.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	for {
		time.Sleep(time.Second)
		for engine, ns := range nss {
			v, _, _, err := diagnoseAt(ctx, kc, sc.Target(), "-n", ns)
			if err != nil {
				t.Fatal(err)
			}
			got[engine] = v
		}
		if got[state.EngineSimulated] == want && got[state.EngineReal] == want || time.Since(start) > sc.Deadline {
			break
		}
	}
	// Back-offs repeat meanwhile.
	time.Sleep(time.Until(start.Add(settle)))
	stopSampling()
	<-sampled
	for engine, ns := range nss {
		v, out, _, err := diagnoseAt(ctx, kc, sc.Target(), "-n", ns)
		if err != nil {
			t.Fatal(err)
		}
		got[engine] = v
		if v != want {
			problems = append(problems, fmt.Sprintf("%s node: verdict %+v, want %+v\n%s\nits namespace's events:\n%s%s", engine, v, want, out, eventLines(ctx, c, ns), nodeNote(c)))
		}
	}
	row.Simulated, row.Real = got[state.EngineSimulated], got[state.EngineReal]
	seen := func(engine string, min int) []string {
		var out []string
		for l, n := range states[engine] {
			if n >= min {
				out = append(out, l)
			}
		}
		return out
	}
	diff := func() string {
		simAll, simRepeated := eventShape(ctx, t, c, nss[state.EngineSimulated])
		realAll, realRepeated := eventShape(ctx, t, c, nss[state.EngineReal])
		return diffShapes(append(simRepeated, seen(state.EngineSimulated, 8)...), append(realAll, seen(state.EngineReal, 1)...), "-") +
			diffShapes(append(realRepeated, seen(state.EngineReal, 8)...), append(simAll, seen(state.EngineSimulated, 1)...), "+")
	}
	d := diff()
	// On a loaded machine a kubelet's events can land late: its recorder
	// retries a write that failed 10 s later (client-go's broadcaster).
	// CI once saw both nodes' Created, Started and BackOff events missing
	// 35 s into six scenarios at once. Events are read again, three times
	// at most, before a difference counts.
	for retry := 1; d != "" && retry <= 3; retry++ {
		time.Sleep(10 * time.Second)
		if d = diff(); d == "" {
			t.Logf("the evidence became equal %d s later: events landed late", 10*retry)
		}
	}
	if d != "" {
		problems = append(problems, fmt.Sprintf("the simulated kubelet's evidence differs from the real one's (- simulated, + real):\n%s", d))
	}
	row.Equal = len(problems) == 0
	return row, problems
}

// eventLines lists the events of namespace ns, a line each, oldest first:
// what a verdict that differs was made of.
func eventLines(ctx context.Context, c kubernetes.Interface, ns string) string {
	evs, err := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "  (listing them: " + err.Error() + ")"
	}
	sort.SliceStable(evs.Items, func(i, j int) bool {
		return evs.Items[i].CreationTimestamp.Before(&evs.Items[j].CreationTimestamp)
	})
	var b strings.Builder
	for _, e := range evs.Items {
		fmt.Fprintf(&b, "  %s %s %s/%s %s (x%d, from %s %s): %s\n", e.CreationTimestamp.Format(time.TimeOnly), e.Type,
			e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, max(e.Count, 1), e.Source.Component, e.Source.Host, e.Message)
	}
	if b.Len() == 0 {
		return "  (none)"
	}
	return b.String()
}

// eventShape is the evidence of a scenario's pods' events: the reasons of
// Normal events, and the reason and masked message of Warning events; all
// of them, and those that repeat. What one engine repeats the other must
// show at least once; an event seen once on one side only is left out: the
// first seconds of a pod on a node bring transient errors whose wording
// depends on timing (a volume's source not yet readable while the node
// authorizer learns of the pod, a cache sync that times out). The Pulling
// and Pulled events depend on which images the node already holds and are
// left out too.
func eventShape(ctx context.Context, t *testing.T, c kubernetes.Interface, ns string) (all, repeated []string) {
	t.Helper()
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := newMasker(ns, pods.Items)
	seen, again := map[string]bool{}, map[string]bool{}
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind != "Pod" || e.Reason == "Pulling" || e.Reason == "Pulled" {
			continue
		}
		count := e.Count
		if e.Series != nil {
			count = e.Series.Count
		}
		line := "event " + e.Type + " " + e.Reason
		if e.Type == corev1.EventTypeWarning {
			line += ": " + m.mask(e.Message)
		}
		if e.Reason == "Unhealthy" && strings.Contains(e.Message, ":8080: connect: connection refused") {
			// A probe that runs before the program listens on its own
			// port: a real process takes a moment to start, more on a
			// busy machine; the simulated one listens at once.
			continue
		}
		if e.Reason == "FailedMount" && strings.Contains(e.Message, "cache: timed out waiting for the condition") {
			// The kubelet's watch of a pod's ConfigMaps and Secrets
			// starting late on a busy machine ("failed to sync secret
			// cache"): the real node's, once or twice, run to run.
			continue
		}
		seen[line] = true
		if count >= 2 || e.Type != corev1.EventTypeWarning {
			again[line] = true
		}
	}
	return keys(seen), keys(again)
}

// containerStates are the state reasons and masked messages of the pods'
// containers now.
func containerStates(ctx context.Context, t *testing.T, c kubernetes.Interface, ns string) []string {
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("listing pods: %v", err)
		}
		return nil
	}
	m := newMasker(ns, pods.Items)
	seen := map[string]bool{}
	for _, p := range pods.Items {
		if finishing(&p) {
			// A pod whose restart policy lets its containers stay exited
			// (a Job's) shows them terminated while still Running until
			// the pod worker has stopped it: the status manager holds
			// the terminal phase back until then (pkg/kubelet/status
			// mergePodStatus), as long as the runtime takes, more on a
			// busy machine. Like a terminal pod's, its events and
			// verdict are the evidence compared.
			continue
		}
		for _, st := range append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			for _, s := range []corev1.ContainerState{st.State, st.LastTerminationState} {
				switch {
				case s.Waiting != nil && (s.Waiting.Reason == "ContainerCreating" || s.Waiting.Reason == "PodInitializing"):
					// progress, whose length is the runtime's speed
				case s.Waiting != nil && (s.Waiting.Reason == "ErrImagePull" || s.Waiting.Reason == "ImagePullBackOff"):
					// The two alternate as syncs fall inside or outside
					// the image back-off: a matter of timing. The error is
					// the evidence, and the back-off's message repeats it.
					msg := s.Waiting.Message
					if _, after, ok := strings.Cut(msg, ": ErrImagePull: "); ok {
						msg = after
					}
					seen[pullState+m.mask(msg)] = true
				case s.Waiting != nil && (s.Waiting.Reason == "CrashLoopBackOff" || s.Waiting.Reason == "RunContainerError" || s.Waiting.Reason == "PostStartHookError"):
					// A container held by its restart back-off shows the
					// failure's reason or CrashLoopBackOff as a status
					// write falls before or after the sync that learns of
					// the back-off: the real node showed either, run to
					// run. The failure's text is compared in the last
					// state and the events.
					seen[heldState] = true
				case s.Waiting != nil:
					seen["waiting "+s.Waiting.Reason+": "+m.mask(s.Waiting.Message)] = true
				case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
					// A pod the kubelet stopped (evicted) ends with its
					// container terminated as it exited, or, when the
					// runtime had already removed the container as the
					// kubelet wrote its last status, waiting with a last
					// state ContainerStatusUnknown ("could not be
					// located when the pod was deleted"): the real node
					// showed either, more of the second on a busy
					// machine. Its events are the evidence compared.
				case s.Terminated != nil:
					seen[fmt.Sprintf("terminated %s %d: %s", s.Terminated.Reason, s.Terminated.ExitCode, m.mask(s.Terminated.Message))] = true
				}
			}
		}
	}
	return keys(seen)
}

// finishing says a pod of restartPolicy Never or OnFailure has every
// container exited for good: terminal, or about to be.
func finishing(p *corev1.Pod) bool {
	if p.Spec.RestartPolicy == corev1.RestartPolicyAlways || p.Spec.RestartPolicy == "" || len(p.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, st := range p.Status.ContainerStatuses {
		t := st.State.Terminated
		if t == nil || p.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && t.ExitCode != 0 {
			return false
		}
	}
	return true
}

func keys(set map[string]bool) []string {
	var out []string
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// pullState starts the state line of a failing pull; its error is also the
// message of the kubelet's Failed event, which a node that was never
// caught in that state still shows.
const pullState = "waiting ErrImagePull|ImagePullBackOff: "

// heldState is the state line of a container held by its restart
// back-off. Every sync in the back-off also records a BackOff event, which
// a node whose status writes all fell outside the back-off still shows:
// CI's real node, on a busy machine, wrote none inside liveness-failing's
// back-offs in two plays, yet recorded their BackOff events.
const heldState = "waiting, held by the restart back-off"

// diffShapes lists, marked with sign, the lines of want that have lacks.
func diffShapes(want, has []string, sign string) string {
	in := map[string]bool{}
	for _, x := range has {
		in[x] = true
	}
	shown := func(l string) bool {
		if in[l] {
			return true
		}
		if l == heldState {
			for _, x := range has {
				if strings.HasPrefix(x, "event Warning BackOff: Back-off restarting failed container ") {
					return true
				}
			}
		}
		if err, ok := strings.CutPrefix(l, pullState); ok {
			for _, x := range has {
				if strings.HasPrefix(x, "event Warning Failed: Failed to pull image ") && strings.HasSuffix(x, ": "+err) {
					return true
				}
			}
		}
		return false
	}
	sort.Strings(want)
	var b strings.Builder
	for _, l := range want {
		if !shown(l) {
			fmt.Fprintf(&b, "%s %s\n", sign, l)
		}
	}
	return b.String()
}

// masker replaces what differs between two runs of the same scenario: the
// namespace, pod and node names, IDs, digests, addresses and durations.
type masker struct{ names *strings.Replacer }

var maskRes = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "UID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "TIME"},
	{regexp.MustCompile(`sha256:[0-9a-f]{64}`), "DIGEST"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	// A registry outage ends at a second counted from each copy's apply.
	{regexp.MustCompile(`/outage/(\d+)-until-\d+/`), "/outage/$1-until-UNIX/"},
	// A slow path is made unique at each apply.
	{regexp.MustCompile(`/slow/([0-9a-z.]+)-[0-9a-z]+/`), "/slow/$1-ID/"},
	{regexp.MustCompile(`\b[0-9a-f]{12,}\b`), "ID"},
	{regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`), "IP"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)\b`), "DUR"},
	{regexp.MustCompile(`Image size: \d+ bytes`), "Image size: N bytes"},
	// The CNI plugins' directory: the node's --node-bin on a real node,
	// containerd's default on a simulated one.
	{regexp.MustCompile(`in path \[[^\]]*\]`), "in path [CNI-BIN-DIRS]"},
	{regexp.MustCompile(`kube-api-access-[a-z0-9]{5}`), "kube-api-access-XXXXX"},
	// The kubelet's --root-dir: the node's directory in the lab's state on
	// a real node, the default /var/lib/kubelet on a simulated one (a
	// Localhost seccomp profile's path is under it).
	{regexp.MustCompile(`/\S*/nodes/NODE/kubelet/`), "/var/lib/kubelet/"},
}

func newMasker(ns string, pods []corev1.Pod) masker {
	var pairs []string
	for _, p := range pods {
		pairs = append(pairs, p.Name, "POD")
		if p.Spec.NodeName != "" {
			pairs = append(pairs, p.Spec.NodeName, "NODE")
		}
	}
	pairs = append(pairs, ns, "NS")
	return masker{strings.NewReplacer(pairs...)}
}

func (m masker) mask(s string) string {
	s = m.names.Replace(s)
	for _, r := range maskRes {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// checkFidelityTable keeps docs/real-nodes.md's comparison table equal to the
// measured one; UPDATE_GOLDEN=1 rewrites it.
func checkFidelityTable(t *testing.T, rows []fidelityRow) {
	sort.Slice(rows, func(i, j int) bool { return rows[i].Scenario < rows[j].Scenario })
	var b strings.Builder
	b.WriteString("| scenario | simulated node | real node | equal |\n|---|---|---|---|\n")
	for _, r := range rows {
		equal := "yes"
		if !r.Equal {
			equal = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Scenario, verdictCell(r.Simulated), verdictCell(r.Real), equal)
	}
	path := filepath.Join("..", "..", "docs", "real-nodes.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "<!-- fidelity:start -->\n", "<!-- fidelity:end -->"
	doc := string(data)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/real-nodes.md has no %q ... %q section", start, end)
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		doc = doc[:i+len(start)] + b.String() + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(start) : j]; got != b.String() {
		t.Errorf("docs/real-nodes.md's comparison of the engines is out of date; UPDATE_GOLDEN=1 go -C lab test -run TestRealNode ./e2e rewrites it. Measured:\n%s", b.String())
	}
}

// realNodeUnfit is why the real node cannot take pods ("" when it can):
// its taints and the conditions other than Ready=True that are not False.
func realNodeUnfit(c kubernetes.Interface) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := c.CoreV1().Nodes().Get(ctx, state.RealNodeName(0), metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	var bad []string
	for _, taint := range n.Spec.Taints {
		bad = append(bad, "taint "+taint.ToString())
	}
	for _, cond := range n.Status.Conditions {
		ok := cond.Status == corev1.ConditionFalse
		if cond.Type == corev1.NodeReady {
			ok = cond.Status == corev1.ConditionTrue
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("condition %s=%s %s: %s", cond.Type, cond.Status, cond.Reason, cond.Message))
		}
	}
	return strings.Join(bad, "; ")
}

// nodeNote is a line on the real node's state for a failure's message,
// when it cannot take pods.
func nodeNote(c kubernetes.Interface) string {
	if bad := realNodeUnfit(c); bad != "" {
		return "the real node cannot take pods: " + bad + "\n"
	}
	return ""
}

func verdictCell(v verdict) string {
	if v.Link == "" {
		return string(v.Health)
	}
	return fmt.Sprintf("%s %s %s", v.Health, v.Link, v.Cause)
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// BenchmarkRealNode starts a lab with one real node: the time `lab up`
// takes to return with it Ready (goal: 20 s on 2 cores once built), and
// how long a pod of the lab's own image, pinned to it, takes from bound to
// Running (goal: 5 s; the first pull of the image included).
func BenchmarkRealNode(b *testing.B) {
	bin := nodePrograms(b)
	var up, toRunning time.Duration
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "real")
		if err := startReaper(dir, dir); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		out, err := labAt(dir, "up", "--nodes", "0", "--real-nodes", "1", "--node-bin", bin)
		up = time.Since(start)
		if err != nil {
			b.Fatalf("lab up: %v\n%s", err, out)
		}
		toRunning = realPodStart(b, state.Layout{Dir: dir}.Kubeconfig())
		if out, err := labAt(dir, "down"); err != nil {
			b.Fatalf("lab down: %v\n%s", err, out)
		}
	}
	b.ReportMetric(up.Seconds(), "s-up-to-ready")
	b.ReportMetric(toRunning.Seconds(), "s-bound-to-running")
}

// realPodStart creates a pod of the lab's image on the real node and
// returns the time from its PodScheduled condition to its container
// running.
func realPodStart(b *testing.B, kc string) time.Duration {
	c := clientFor(b, kc, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if _, err := c.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "bench"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{state.EngineLabel: state.EngineReal},
			Containers:   []corev1.Container{{Name: "web", Image: "registry.lab.internal/web:v1"}},
		},
	}
	if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// The API's times have a resolution of a second: the pod is watched
	// by polling every 20 ms instead, bound when spec.nodeName is set.
	var bound time.Time
	for {
		p, err := c.CoreV1().Pods("default").Get(ctx, "bench", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if bound.IsZero() && p.Spec.NodeName != "" {
			bound = time.Now()
		}
		if len(p.Status.ContainerStatuses) > 0 && p.Status.ContainerStatuses[0].State.Running != nil {
			return time.Since(bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
