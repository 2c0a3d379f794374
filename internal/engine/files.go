package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/capture"
)

// loadFiles reads every -f file ("-" is stdin) into one bundle holding at
// least one workload, or the pod named.
func (e *Engine) loadFiles() (*capture.Bundle, error) {
	all, err := e.loadAll(e.Files)
	if err != nil {
		return nil, err
	}
	walkable := len(all.Workloads("")) > 0 || e.names(kindPod) ||
		all.HasObjects() && (e.names(kindResource) || all.Target.Name != "") || // a capture names what it was taken of
		all.Lone != nil && len(e.targets) > 0 ||
		len(all.TrafficObjects("")) > 0 && e.namesTraffic() // a Service and its events, no workload
	if !walkable {
		return nil, UsageErrorf("no workload in %v: expected a kubectl chain capture, or the output of kubectl get deploy,rs,pods,events -o yaml (or -o json; for a StatefulSet sts,controllerrevisions,pvc,pods,events)", e.Files)
	}
	return all, nil
}

// names says a target of kind was named: a pod may have no controller,
// and a file holds any other kind's objects among its others.
func (e *Engine) names(kind string) bool {
	for _, t := range e.targets {
		if t.Kind == kind {
			return true
		}
	}
	return false
}

// namesTraffic says a traffic kind's object was named (svc/NAME, ing/NAME,
// a Gateway API object): the files may hold it without any workload.
func (e *Engine) namesTraffic() bool {
	for _, t := range e.targets {
		if k, ok := workloadKinds[t.Kind]; ok && chain.IsTraffic(k) {
			return true
		}
	}
	return false
}

// loadAll merges files into one bundle, naming the file that fails.
func (e *Engine) loadAll(files []string) (*capture.Bundle, error) {
	return LoadFiles(files, e.Stdin, e.notes)
}

// LoadFiles merges files (a folder, its manifest files; "-", stdin) into
// one bundle, naming the file that fails; notes says which fields of an
// object did not fit their type and were left out.
func LoadFiles(files []string, stdin io.Reader, notes io.Writer) (*capture.Bundle, error) {
	all := &capture.Bundle{Skipped: map[string]int{}}
	files, err := expandDirs(files)
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		r, label, closeFn, err := open(name, stdin)
		if err != nil {
			return nil, err
		}
		b, err := capture.Load(r)
		closeFn()
		if err != nil {
			return nil, UsageErrorf("%s: %v", label, err)
		}
		for _, u := range b.Undecoded {
			fmt.Fprintf(notes, "%s: %s\n", label, u)
		}
		all.Merge(b)
	}
	return all, nil
}

// manifestExts are the files kubectl apply -f DIR reads in a folder.
var manifestExts = []string{".yaml", ".yml", ".json"}

// expandDirs replaces each folder by its manifest files, in name order
// and not recursively, as kubectl apply -f DIR reads it. A folder of a
// kustomization is not a folder of manifests: the error says how to
// render it.
func expandDirs(files []string) ([]string, error) {
	var out []string
	for _, name := range files {
		fi, err := os.Stat(name)
		if name == "-" || err != nil || !fi.IsDir() {
			out = append(out, name) // open names what is wrong
			continue
		}
		for _, k := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if _, err := os.Stat(filepath.Join(name, k)); err == nil {
				return nil, UsageErrorf("%s is a kustomization: render it first, as kubectl apply -k would: kubectl kustomize %s | kubectl chain --manifests - (or -f -)", name, name)
			}
		}
		entries, err := os.ReadDir(name)
		if err != nil {
			return nil, UsageErrorf("reading %s: %v", name, err)
		}
		n := len(out)
		for _, e := range entries {
			if !e.IsDir() && slices.Contains(manifestExts, filepath.Ext(e.Name())) {
				out = append(out, filepath.Join(name, e.Name()))
			}
		}
		if len(out) == n {
			return nil, UsageErrorf("%s holds no .yaml, .yml or .json file", name)
		}
	}
	return out, nil
}

// open opens one -f argument: a file, or stdin for "-".
func open(name string, stdin io.Reader) (io.Reader, string, func(), error) {
	if name == "-" {
		return stdin, "standard input", func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, "", nil, UsageErrorf("reading %s: %v", name, err)
	}
	return f, name, func() { f.Close() }, nil
}

// readFiles reads the targets from captured files: the same snapshots as
// live, with no cluster, each judged at the capture's own time.
func (e *Engine) readFiles() (*targets, error) {
	b, err := e.loadFiles()
	if err != nil {
		return nil, err
	}
	// Any other kind: its type as the files' objects name it, since no
	// discovery is asked offline.
	for i := range e.targets {
		if t := &e.targets[i]; t.Kind == kindResource {
			api, ok := b.ResourceAPI(t.Type)
			if !ok {
				return nil, UsageErrorf("%s/%s: no object of type %q in %v", t.Type, t.Name, t.Type, e.Files)
			}
			t.API = api
		}
	}
	// -n as given: offline, no kubeconfig default applies, and "" matches
	// any namespace.
	ns := e.Namespace
	b.Adopt(ns) // an object that names no namespace is in the one asked
	if err := e.resolveFiles(b, ns); err != nil {
		return nil, err
	}
	t := &targets{}
	switch {
	case e.All || e.AllNamespaces || e.Selector != "":
		scope := ns
		if e.AllNamespaces {
			scope = ""
		}
		for _, w := range sortedWorkloads(b, scope) {
			s, err := b.Read(w.Namespace, w.Ref)
			if err != nil {
				return nil, UsageErrorf("%v", err)
			}
			if e.selects(s.Workload().GetLabels()) {
				t.snaps = append(t.snaps, s)
			}
		}
		// Pasted pods whose workload the paste lacks: one walk a owner.
		for _, g := range b.PodGroups(scope) {
			s, err := b.Read(g.Namespace, g.Ref)
			if err != nil {
				return nil, UsageErrorf("%v", err)
			}
			if e.selects(s.Workload().GetLabels()) {
				s.Via = g.Owner
				t.snaps = append(t.snaps, s)
			}
		}
		if len(t.snaps) == 0 {
			return nil, &ExitError{Code: ExitNotFound, Err: fmt.Errorf("no workload in %v matches", e.Files)}
		}
	case len(e.refs) > 1:
		for _, ref := range e.refs {
			s, err := b.Read(ns, ref)
			if err != nil {
				return nil, UsageErrorf("%v", err)
			}
			s.Via = e.via[ref]
			t.snaps = append(t.snaps, s)
		}
	default:
		var ref chain.Ref
		if len(e.refs) == 1 {
			ref = e.refs[0]
		}
		s, err := b.Read(ns, ref)
		if err != nil {
			return nil, UsageErrorf("%v (name one, or pass --all)", err)
		}
		s.Via = e.via[ref]
		t.snaps = append(t.snaps, s)
	}
	return t, nil
}

// selects applies -l to a Deployment's labels.
func (e *Engine) selects(set map[string]string) bool {
	if e.Selector == "" {
		return true
	}
	sel, err := labels.Parse(e.Selector)
	return err == nil && sel.Matches(labels.Set(set))
}
