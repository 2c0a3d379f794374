// Package fill writes a big, realistic cluster straight into a frozen lab's
// API server (`kubectl chain lab up --frozen`): nodes, namespaces,
// Deployments of every size with their ReplicaSets and pods, and events,
// each with the status the controllers, the scheduler and the kubelet would
// have left. No component does any work for it, so 20,000 pods take a
// minute or two to write, not the hour a kubelet would need to start them.
//
// Every object is a copy of a capture the end-to-end tests took of a lab
// scenario (testdata/captures): a healthy Deployment, or one broken in a
// known way. Names, UIDs, nodes, addresses and times are rewritten; what
// the components wrote (conditions, container states, event reasons and
// messages) is kept. The same Spec, seed included, plans the same cluster.
package fill

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Spec is the shape of the cluster to write.
type Spec struct {
	// Seed makes the plan reproducible: the same Spec plans the same
	// cluster, names and sizes included.
	Seed uint64
	// Namespaces share the Deployments round-robin.
	Namespaces int
	// Deployments in all, Broken of them broken (planted among the
	// healthy ones, a few pods each).
	Deployments int
	Broken      int
	// Pods is the number of pods of all the Deployments.
	Pods int
	// Events is the number of events to write: the live pods' own
	// (Scheduled, Pulled, Created, Started; the broken ones' warnings),
	// their ReplicaSets', and those left by pods of earlier rollouts.
	// Broken Deployments always get theirs; the others share the rest,
	// as in a real cluster where the events of long-running pods have
	// expired.
	Events int
	// Big, when positive, is the size of one healthy Deployment named
	// "big" in the first namespace (the case a single verdict is
	// measured on); BigBroken the size of one named "big-broken" there.
	Big, BigBroken int
}

// Validate rejects shapes that cannot be planned.
func (s Spec) Validate() error {
	switch {
	case s.Namespaces < 1:
		return fmt.Errorf("namespaces must be at least 1, got %d", s.Namespaces)
	case s.Deployments < 1:
		return fmt.Errorf("deployments must be at least 1, got %d", s.Deployments)
	case s.Broken < 0 || s.Broken > s.Deployments/2:
		return fmt.Errorf("broken must be between 0 and half the deployments (%d), got %d", s.Deployments/2, s.Broken)
	case s.Pods < s.Deployments+s.Big+s.BigBroken:
		return fmt.Errorf("pods (%d) must be at least one per deployment plus big and big-broken (%d)", s.Pods, s.Deployments+s.Big+s.BigBroken)
	case s.Events < 0:
		return fmt.Errorf("events must not be negative, got %d", s.Events)
	}
	return nil
}

// Workload is one planned Deployment.
type Workload struct {
	Namespace, Name string
	// Template is the capture it is copied from (a scenario's name).
	Template string
	Replicas int
	// Age is how long before the fill's time it was created: its
	// statuses' and events' times are that far back.
	Age time.Duration
	// Broken is planted broken: its template's verdict is not healthy.
	Broken bool
}

// Plan is every object the fill writes, before any is written.
type Plan struct {
	Spec       Spec
	Namespaces []string
	Nodes      []string
	Workloads  []Workload
}

// Healthy is the template of the healthy Deployments.
const Healthy = "healthy"

// BrokenTemplates are the captures of the broken Deployments: one each of
// the failures platform teams meet most, at the image, the container, the
// readiness probe, a volume, the scheduler and the ReplicaSet (a quota).
var BrokenTemplates = []string{
	"image-not-found", "crashloop", "readiness-failing", "mount-configmap-missing",
	"node-selector-mismatch", "quota-exceeded",
}

// Templates are all the captures a plan uses.
func Templates() []string { return append([]string{Healthy}, BrokenTemplates...) }

// podsPerNode is the kubelet's default pod capacity.
const podsPerNode = 110

// names are the stems of the Deployments' names, as in a shop's namespace.
var names = []string{"api", "web", "cart", "auth", "search", "billing", "mailer", "worker", "gateway", "catalog", "orders", "reports"}

// NewPlan plans the cluster of s. The sizes follow a long tail: most
// Deployments run 1 to 3 pods, a few tens or hundreds.
func NewPlan(s Spec) (Plan, error) {
	if err := s.Validate(); err != nil {
		return Plan{}, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x6b636861696e))
	p := Plan{Spec: s}
	for i := range s.Namespaces {
		p.Namespaces = append(p.Namespaces, fmt.Sprintf("fill-%03d", i))
	}
	for i := range (s.Pods+podsPerNode-1)/podsPerNode + 2 {
		p.Nodes = append(p.Nodes, fmt.Sprintf("fill-node-%03d", i))
	}
	if s.Big > 0 {
		p.Workloads = append(p.Workloads, Workload{Namespace: p.Namespaces[0], Name: "big", Template: Healthy, Replicas: s.Big, Age: 26 * time.Hour})
	}
	if s.BigBroken > 0 {
		p.Workloads = append(p.Workloads, Workload{Namespace: p.Namespaces[0], Name: "big-broken", Template: "crashloop", Replicas: s.BigBroken, Age: 12 * time.Minute, Broken: true})
	}
	// Broken ones are spread evenly among the others.
	brokenAt := map[int]bool{}
	for i := range s.Broken {
		brokenAt[(i*s.Deployments)/s.Broken+s.Deployments/(2*s.Broken)] = true
	}
	sizes := longTail(rng, s.Deployments, s.Pods-s.Big-s.BigBroken)
	nb := 0
	for i := range s.Deployments {
		w := Workload{
			Namespace: p.Namespaces[i%len(p.Namespaces)],
			Name:      fmt.Sprintf("%s-%04d", names[rng.IntN(len(names))], i),
			Template:  Healthy,
			Replicas:  sizes[i],
			Age:       time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))),
		}
		if brokenAt[i] {
			w.Template, w.Broken = BrokenTemplates[nb%len(BrokenTemplates)], true
			w.Age = time.Duration(5+rng.IntN(40)) * time.Minute
			nb++
		}
		p.Workloads = append(p.Workloads, w)
	}
	return p, nil
}

// longTail draws n sizes of at least 1 that sum to total: most 1 to 3,
// some up to 10, fewer up to 30, a few up to 100.
func longTail(rng *rand.Rand, n, total int) []int {
	sizes := make([]int, n)
	sum := 0
	for i := range sizes {
		switch r := rng.IntN(100); {
		case r < 60:
			sizes[i] = 1 + rng.IntN(3)
		case r < 85:
			sizes[i] = 4 + rng.IntN(7)
		case r < 97:
			sizes[i] = 11 + rng.IntN(20)
		default:
			sizes[i] = 31 + rng.IntN(70)
		}
		sum += sizes[i]
	}
	// Scale to the total, then settle the rounding one pod at a time.
	scaled := 0
	for i := range sizes {
		sizes[i] = max(1, sizes[i]*total/sum)
		scaled += sizes[i]
	}
	for scaled != total {
		i := rng.IntN(n)
		switch {
		case scaled < total:
			sizes[i]++
			scaled++
		case sizes[i] > 1:
			sizes[i]--
			scaled--
		}
	}
	return sizes
}

// BrokenWorkloads are the planted broken Deployments, by namespace and name.
func (p Plan) BrokenWorkloads() []Workload {
	var out []Workload
	for _, w := range p.Workloads {
		if w.Broken {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b Workload) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out
}
