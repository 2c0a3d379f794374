// Package corpus reads the corpus of real failure evidence in
// testdata/real: messages seen in public bug reports, docs and upstream
// source, each with its provenance and the cause it must decode to, and
// incidents rebuilt from public threads as `kubectl get -o yaml` Lists.
//
// The lab speaks one release's wording (the one it links); the corpus keeps
// the rest of the world's: older releases, Docker, CRI-O, clouds. Tests walk
// and explain every entry (internal/corpus tests); `go run
// ./testdata/real/gen` rebuilds the incident Lists from their specs.
package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-chain/kubectl-chain/chain"
)

// Provenance says where a piece of evidence was seen.
type Provenance struct {
	// Source is the URL of the thread or page, or REPO@TAG:path#Lline for
	// a format string in upstream source.
	Source string `json:"source"`
	// Version is the Kubernetes release, "" when unknown.
	Version string `json:"version,omitempty"`
	// Runtime is docker, dockershim, containerd or cri-o, when known.
	Runtime string `json:"runtime,omitempty"`
	// Platform is the distribution or cloud (EKS, GKE, OpenShift, ...).
	Platform string `json:"platform,omitempty"`
	// Kind is the kind of workload the evidence is about: Deployment (the
	// default), StatefulSet, DaemonSet, Job, CronJob or Pod (a bare pod).
	Kind string `json:"kind,omitempty"`
	Note string `json:"note,omitempty"`
}

// kinds are the values Kind takes; "" reads as Deployment.
var kinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "Job": true, "CronJob": true, "Pod": true}

// WorkloadKind is the entry's kind, Deployment when it names none.
func (p Provenance) WorkloadKind() string {
	if p.Kind == "" {
		return "Deployment"
	}
	return p.Kind
}

// Message is one real message and the cause it must decode to.
type Message struct {
	Provenance `json:",inline"`
	// Form is what a user pastes: event, waiting, terminated, condition,
	// pod-status, apply, describe, get-events or reason.
	Form string `json:"form"`
	// Reason came with the message; "" when the source showed none.
	Reason  string        `json:"reason,omitempty"`
	Message string        `json:"message"`
	Cause   chain.CauseID `json:"cause"`
	Link    chain.LinkID  `json:"link"`

	// Family and Index locate the entry: its file and position.
	Family string `json:"-"`
	Index  int    `json:"-"`
}

// ID names an entry in test output: family#index.
func (m Message) ID() string { return fmt.Sprintf("%s#%d", m.Family, m.Index) }

// Want is the verdict an incident must get.
type Want struct {
	Link  chain.LinkID  `json:"link"`
	Cause chain.CauseID `json:"cause"`
	// Health healthy: an incident where a peer saw a failure that was
	// none; link and cause stay empty.
	Health chain.Health `json:"health,omitempty"`
}

// Root is testdata/real relative to a package directory two levels down
// (internal/corpus).
var Root = filepath.Join("..", "..", "testdata", "real")

// LoadMessages reads every messages/*.yaml under root, by family (the file
// name), in file order.
func LoadMessages(root string) ([]Message, error) {
	var all []Message
	err := eachFamily(filepath.Join(root, "messages"), func(family string, data []byte) error {
		var ms []Message
		if err := yaml.UnmarshalStrict(data, &ms); err != nil {
			return err
		}
		for i := range ms {
			ms[i].Family, ms[i].Index = family, i
			if err := ms[i].check(); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
		all = append(all, ms...)
		return nil
	})
	return all, err
}

// LoadIncidents reads every incidents/*.yaml under root.
func LoadIncidents(root string) ([]Incident, error) {
	var all []Incident
	names := map[string]string{}
	err := eachFamily(filepath.Join(root, "incidents"), func(family string, data []byte) error {
		var is []Incident
		if err := yaml.UnmarshalStrict(data, &is); err != nil {
			if strings.Contains(err.Error(), `unknown field "true"`) {
				// YAML 1.1 reads a bare on: key as true
				return fmt.Errorf("%w: quote the events' 'on': keys", err)
			}
			return err
		}
		for i := range is {
			is[i].Family = family
			if err := is[i].check(); err != nil {
				return fmt.Errorf("incident %d (%s): %w", i, is[i].Name, err)
			}
			if other, dup := names[is[i].Name]; dup {
				return fmt.Errorf("incident %q is also in %s", is[i].Name, other)
			}
			names[is[i].Name] = family
		}
		all = append(all, is...)
		return nil
	})
	return all, err
}

func eachFamily(dir string, fn func(family string, data []byte) error) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no *.yaml in %s", dir)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		family := strings.TrimSuffix(filepath.Base(p), ".yaml")
		if err := fn(family, data); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

var forms = map[string]bool{"event": true, "waiting": true, "terminated": true, "condition": true,
	"pod-status": true, "apply": true, "describe": true, "get-events": true, "reason": true, "log": true, "get": true}

func (p Provenance) check() error {
	if p.Source == "" {
		return fmt.Errorf("no source")
	}
	if p.Kind != "" && !kinds[p.Kind] {
		return fmt.Errorf("kind %q is not one of Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod", p.Kind)
	}
	return nil
}

func (m Message) check() error {
	if err := m.Provenance.check(); err != nil {
		return err
	}
	if !forms[m.Form] {
		return fmt.Errorf("form %q is not one of event, waiting, terminated, condition, pod-status, apply, describe, get-events, get, log, reason", m.Form)
	}
	if strings.TrimSpace(m.Message) == "" {
		return fmt.Errorf("empty message")
	}
	if m.Cause == "" || m.Link == "" {
		return fmt.Errorf("no cause or link")
	}
	return nil
}
