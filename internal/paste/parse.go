package paste

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// parser gathers the objects of one paste. Objects are kept by pointer
// until finish, so that times printed as ages can be set once the
// paste's newest time is known.
type parser struct {
	// ns is the namespace of the last kubectl command line pasted (-n
	// NS, --namespace=NS): the get tables after it, which print no
	// NAMESPACE column, are of it.
	ns    string
	pods  []*podText
	rss   []*appsv1.ReplicaSet
	deps  []*appsv1.Deployment
	nodes []*corev1.Node
	// claimRows are kubectl get pvc's rows, kept until their ages are
	// times.
	claimRows []*corev1.PersistentVolumeClaim
	jobs      []*batchv1.Job
	// endpoints are kubectl describe endpoints, read as slices.
	endpoints []discoveryv1.EndpointSlice
	// onNode are the pods a described node lists.
	onNode []podOnNode
	events []*eventText
	// generic are the objects of kubectl's generic describe (their
	// kind, namespace and name), handed on as YAML.
	generic []metav1.PartialObjectMetadata
	abs     []time.Time
	rel     []relTime
	res     Result
}

// podText is a pod and how the paste showed it.
type podText struct {
	pod       *corev1.Pod
	described bool // a kubectl describe pod block; else a get pods row
	// unnamed is a get pods row's container whose name the row does not
	// show, to be named from the pod's events (one container only).
	unnamed bool
	// nodeUnknown says the pod is bound (its containers have states)
	// but the row does not show its node (no -o wide).
	nodeUnknown bool
	// skeleton is a pod known only by the events about it.
	skeleton bool
}

// eventText is an event and the object it is about.
type eventText struct {
	row eventRow
	// described says it came from a describe's Events (about that
	// object); orphan that the describe's head was not pasted.
	described, orphan bool
}

// relTime is a time printed as an age: Now minus age.
type relTime struct {
	at  *metav1.Time
	age time.Duration
}

// Parse reads every piece of kubectl output in text.
// commandRe is a kubectl command line pasted with its output, and the
// namespace it names (-n NS, -nNS, --namespace NS, --namespace=NS).
var commandRe = regexp.MustCompile(`^\s*(?:\S*[$#%>]\s*)?kubectl(?:\s.*?)?\s(?:-n\s*|--namespace[= ])([a-z0-9][-a-z0-9]*)`)

func Parse(text string) *Result {
	p := &parser{}
	lines := splitLines(text)
	for i := 0; i < len(lines); {
		l := lines[i]
		if m := commandRe.FindStringSubmatch(l.text); m != nil {
			p.ns = m[1]
		}
		switch {
		case isDescribeStart(lines, i):
			b := readBlock(lines, i)
			p.describe(b)
			i = max(b.end, i+1)
		case tableKind(l) != "":
			i = max(p.table(lines, i, tableKind(l)), i+1)
		case yamlStart(l):
			i = max(p.yaml(lines, i), i+1)
		case l.key == "Events" && l.indent <= 2:
			b := readBlock(lines, i)
			p.orphanEvents(b)
			i = max(b.end, i+1)
		case headlessStart(lines, i):
			// A describe whose head the paste cut (it starts at
			// Namespace:, Containers:, Conditions:, ...).
			b := readBlock(lines, i)
			p.headless(b)
			i = max(b.end, i+1)
		case podRowRe.MatchString(l.text):
			i = max(p.headerlessPods(lines, i), i+1)
		case bareRow(l):
			i = max(p.bareRows(lines, i), i+1)
		case eventRowRe.MatchString(l.text) && !strings.HasPrefix(l.text, "Normal") && !strings.HasPrefix(l.text, "Warning") ||
			oldHeaderlessRe.MatchString(l.text):
			// Rows of kubectl get events whose header a tail cut.
			i = max(p.table(lines, i, "events"), i+1)
		default:
			i++
		}
	}
	return p.finish()
}

// Looks says data holds kubectl's human output: a describe block, a get
// table or events.
func Looks(data []byte) bool {
	if !mayLook(data) {
		return false // YAML and JSON, line by line, at a glance
	}
	lines := splitLines(string(data))
	for i, l := range lines {
		if isDescribeStart(lines, i) || tableKind(l) != "" || l.key == "Events" && l.indent <= 2 && i+1 < len(lines) ||
			bareRow(l) || headlessStart(lines, i) || podRowRe.MatchString(l.text) {
			return true
		}
		if _, ok := headerlessEvent(l.raw); ok {
			return true
		}
	}
	return false
}

// yamlStart says a line starts a YAML or JSON document.
func yamlStart(l line) bool {
	return l.indent == 0 && (strings.HasPrefix(l.raw, "apiVersion:") || strings.HasPrefix(l.raw, "kind:") || l.raw == "---" || l.raw == "{")
}

// yaml keeps a YAML or JSON document for the caller's reader.
func (p *parser) yaml(lines []line, i int) int {
	start := i
	for i++; i < len(lines); i++ {
		l := lines[i]
		if isDescribeStart(lines, i) || tableKind(l) != "" || strings.HasPrefix(l.text, "```") || l.raw == "---" || l.indent == 0 && l.raw != "" && promptRe.MatchString(l.raw) && !strings.Contains(l.raw, ":") {
			break
		}
	}
	var b strings.Builder
	for _, l := range lines[start:i] {
		b.WriteString(l.raw)
		b.WriteByte('\n')
	}
	if doc := strings.TrimSpace(strings.TrimPrefix(b.String(), "---")); doc != "" {
		p.res.YAML = append(p.res.YAML, doc)
	}
	if i < len(lines) && lines[i].raw == "---" && i == start {
		i++
	}
	return i
}

// describer is one kind of kubectl describe: the titles only its
// describe prints (k8s.io/kubectl pkg/describe, 1.19 to 1.37), and its
// reader. The first that matches a block reads it.
type describer struct {
	kind string
	is   func(b block) bool
	read func(p *parser, b block)
}

// describers are the kinds Parse reads, most specific first: a CronJob
// prints a Job's titles, a StatefulSet a Deployment's Replicas word.
var describers = []describer{
	{"StatefulSet", func(b block) bool {
		return b.has("Pod Template") && (b.has("Volume Claims", "Update Strategy", "Pod Management Policy") || totalOnlyRe.MatchString(b.value("Replicas")))
	}, (*parser).describeStatefulSet},
	{"Deployment", func(b block) bool {
		replicas := b.value("Replicas")
		return b.has("Pod Template") && (b.has("StrategyType") || b.has("NewReplicaSet") || strings.Contains(replicas, "updated |"))
	}, (*parser).describeDeployment},
	{"ReplicaSet", func(b block) bool {
		return b.has("Pod Template") && b.has("Pods Status") && strings.Contains(b.value("Replicas"), "current /")
	}, (*parser).describeReplicaSet},
	{"DaemonSet", func(b block) bool { return b.has("Desired Number of Nodes Scheduled") }, (*parser).describeDaemonSet},
	{"CronJob", func(b block) bool { return b.has("Schedule") && b.has("Concurrency Policy") }, (*parser).describeCronJob},
	{"Job", func(b block) bool { return b.has("Pod Template") && b.has("Pods Statuses", "Completions") }, (*parser).describeJob},
	{"Pod", func(b block) bool { return b.has("Containers", "Init Containers") && !b.has("Pod Template") }, (*parser).describePod},
	{"Service", func(b block) bool {
		return b.has("Type") && (b.has("Session Affinity", "TargetPort", "IP Families") || b.has("IP") && b.has("Selector"))
	}, (*parser).describeService},
	{"Endpoints", func(b block) bool { return b.has("Subsets") }, (*parser).describeEndpoints},
	{"EndpointSlice", func(b block) bool { return b.has("AddressType") }, (*parser).describeEndpointSlice},
	{"Ingress", func(b block) bool { return b.has("Rules") && b.has("Default backend", "Address") }, (*parser).describeIngress},
	{"IngressClass", func(b block) bool {
		return b.has("Controller") && !b.has("Namespace", "Containers", "Pod Template", "Rules", "Kind")
	}, (*parser).describeIngressClass},
	{"Node", func(b block) bool { return b.has("Unschedulable", "System Info", "Non-terminated Pods") }, (*parser).describeNode},
	{"PersistentVolumeClaim", func(b block) bool {
		// A describe cut after its Volume line (k3s#85) is still a
		// claim's: a PersistentVolume's has no Namespace.
		return b.has("StorageClass") && b.has("Volume") && (b.has("Access Modes") || b.has("Namespace") && b.has("Status")) && !b.has("Reclaim Policy")
	}, (*parser).describeClaim},
	{"ResourceQuota", func(b block) bool { return b.has("Resource Used Hard") }, (*parser).describeQuota},
	{"Namespace", func(b block) bool {
		return b.has("Status") && !b.has("Namespace") && b.has("Resource Quotas", "No resource quota.", "Resource Limits", "No LimitRange resource.")
	}, (*parser).describeNamespace},
	// kubectl's generic describe (custom resources, and the built-in
	// kinds without a describer of their own): last, by its head.
	{"generic", func(b block) bool { return b.has("API Version") && b.has("Kind") }, (*parser).describeGeneric},
}

// totalOnlyRe is a StatefulSet's Replicas line, "3 desired | 1 total".
var totalOnlyRe = regexp.MustCompile(`^\d+ desired \| \d+ total$`)

// describe dispatches a describe block on what it shows.
func (p *parser) describe(b block) {
	for _, d := range describers {
		if d.is(b) {
			d.read(p, b)
			return
		}
	}
	p.res.Forms = append(p.res.Forms, "kubectl describe of "+b.value("Name")+" (not read)")
	p.note(fmt.Sprintf("%s: kubectl describe of this kind is not read yet; its events are left out", b.value("Name")))
}

// ownerRe is "Controlled By:  ReplicaSet/web-6d4b9" (and the "Created
// By:" and "Controllers:" lines before 1.8).
var ownerRe = regexp.MustCompile(`^([A-Za-z]+)/(\S+)$`)

// apiVersions are the API versions of the kinds that own pods and
// ReplicaSets.
var apiVersions = map[string]string{
	"ReplicaSet": "apps/v1", "Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
	"Job": "batch/v1", "CronJob": "batch/v1", "ReplicationController": "v1", "Node": "v1",
	"Ingress": "networking.k8s.io/v1", "EndpointSlice": "discovery.k8s.io/v1",
}

// ownerOf reads the owner lines of a block.
func ownerOf(b block, namespace string) []metav1.OwnerReference {
	v := b.value("Controlled By", "Created By", "Controllers")
	m := ownerRe.FindStringSubmatch(v)
	if m == nil {
		return nil
	}
	yes := true
	av := apiVersions[m[1]]
	if av == "" {
		av = "v1"
	}
	return []metav1.OwnerReference{{APIVersion: av, Kind: m[1], Name: m[2], UID: UID(m[1], namespace, m[2]), Controller: &yes}}
}

// UID is the UID given to an object a paste shows (kubectl does not print
// UIDs): owners and the objects they own are matched by it.
func UID(kind, namespace, name string) types.UID {
	return types.UID("paste:" + kind + "/" + namespace + "/" + name)
}

// note adds one note, once.
func (p *parser) note(s string) {
	for _, n := range p.res.Notes {
		if n == s {
			return
		}
	}
	p.res.Notes = append(p.res.Notes, s)
}

// podTitles are the titles of kubectl describe pod that a paste cut at
// the top may start at.
var podTitles = map[string]bool{
	"Namespace": true, "Priority": true, "Node": true, "Start Time": true, "Labels": true,
	"Status": true, "Controlled By": true, "Init Containers": true, "Containers": true,
	"Conditions": true, "Volumes": true, "QoS Class": true, "Node-Selectors": true, "Tolerations": true,
}

// headlessStart says lines[i] starts a describe pod block without its
// Name: a pod title at the left edge, and an Events or Containers section
// further in the same block.
func headlessStart(lines []line, i int) bool {
	l := lines[i]
	if l.indent > 2 || !podTitles[l.key] {
		return false
	}
	b := readBlock(lines, i)
	return b.has("Events") || b.has("Containers") && b.has("Status", "Node", "Conditions") || containerStates(b)
}

// containerStates says a block holds a container section with a State
// (a describe pasted from its Init Containers: or Containers: on).
func containerStates(b block) bool {
	for _, k := range []string{"Init Containers", "Containers"} {
		f, ok := b.get(k)
		if !ok {
			continue
		}
		for _, l := range f.body {
			if l.key == "State" {
				return true
			}
		}
	}
	return false
}

// unnamed is the name given to a pod whose describe was pasted without
// its Name line and whose events name none.
const unnamed = "<pod>"

// headless reads a describe pod block cut at the top.
func (p *parser) headless(b block) {
	b.fields = append([]field{{key: "Name", val: unnamed}}, b.fields...)
	p.describePod(b)
	p.note("a kubectl describe pod is cut at the top: its Name is not in the paste, so the pod is called " + unnamed + " unless its events name it")
}

// bareRow says a line is an event row of describe pasted without its
// Events: title and header.
func bareRow(l line) bool {
	if l.indent > 4 {
		return false
	}
	if describeRowRe.MatchString(l.text) {
		return true
	}
	m := oldRowRe.FindStringSubmatch(l.text)
	return m != nil && m[8] != ""
}

// bareRows reads describe event rows without their section.
func (p *parser) bareRows(lines []line, i int) int {
	var body []line
	for ; i < len(lines); i++ {
		l := lines[i]
		if l.text == "" || isBoundary(l) || !bareRow(l) && len(body) == 0 {
			break
		}
		// A line that is no row continues the last one's message (a
		// terminal wrapped it: "daemon: pull access denied ..."), unless
		// it is a describe title.
		if !bareRow(l) && (tableKind(l) != "" || isDescribeStart(lines, i) || l.indent <= 4 && topKey(l)) {
			break
		}
		body = append(body, l)
	}
	rows, _ := describeEvents(body)
	for _, r := range rows {
		p.events = append(p.events, &eventText{row: r, described: true, orphan: true})
	}
	if len(rows) > 0 {
		p.res.Forms = append(p.res.Forms, "rows of a kubectl describe's Events")
	}
	return i
}

// mayLook says some line of data could start kubectl's human output: a
// describe title (Name:, Events:, Containers:, ...), a table header, an
// event row (an age, Normal, Warning), at most four blanks in. It reads
// each line once and matches a pattern only on lines that begin with a
// capital letter, a digit or <, or hold a type word: a YAML or JSON
// capture, whose keys are lower case and whose deeper lines are further
// in, is passed at a glance.
func mayLook(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if bytes.IndexByte(line, 0xe2) >= 0 { // a box-drawing bar's first byte
			line = []byte(unframe(string(line)))
		}
		n := 0
		for n < len(line) && n <= 4 && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 4 || n == len(line) {
			continue
		}
		c := line[n]
		upper := c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '<'
		if (upper || bytes.Contains(line, []byte(" Warning ")) || bytes.Contains(line, []byte(" Normal "))) && startRe.Match(line) {
			return true
		}
	}
	return false
}

// startRe is how a line of kubectl's human output may start.
var startRe = regexp.MustCompile(`^[ \t]{0,4}(?:(?:Name|Events|Namespace|Priority|Node|Start Time|Labels|Status|Controlled By|Init Containers|Containers|Conditions|Volumes|QoS Class|Node-Selectors|Tolerations):|NAME\s|NAMESPACE\s|LAST\s?SEEN|Normal\s|Warning\s|\d+[smhdy]|<unknown>|<invalid>|\S+\s+(?:\d+[smhdy]\S*|<unknown>)\s+(?:Normal|Warning)\s)`)
