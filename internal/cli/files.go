package cli

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
func (o *Options) loadFiles() (*capture.Bundle, error) {
	all, err := o.loadBundle()
	if err != nil {
		return nil, err
	}
	walkable := len(all.Workloads("")) > 0 || o.names(kindPod) ||
		all.HasObjects() && (o.names(kindResource) || all.Target.Name != "") || // a capture names what it was taken of
		all.Lone != nil && len(o.targets) > 0
	if !walkable {
		return nil, usageErrorf("no workload in %v: expected a kubectl chain capture, or the output of kubectl get deploy,rs,pods,events -o yaml (or -o json; for a StatefulSet sts,controllerrevisions,pvc,pods,events)", o.Files)
	}
	return all, nil
}

// names says a target of kind was named: a pod may have no controller,
// and a file holds any other kind's objects among its others.
func (o *Options) names(kind string) bool {
	for _, t := range o.targets {
		if t.kind == kind {
			return true
		}
	}
	return false
}

// loadBundle merges every -f file into one bundle, naming the file that
// fails.
func (o *Options) loadBundle() (*capture.Bundle, error) { return o.loadAll(o.Files) }

// loadAll merges files into one bundle, naming the file that fails.
func (o *Options) loadAll(files []string) (*capture.Bundle, error) {
	all := &capture.Bundle{Skipped: map[string]int{}}
	files, err := expandDirs(files)
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		r, label, closeFn, err := o.open(name)
		if err != nil {
			return nil, err
		}
		b, err := capture.Load(r)
		closeFn()
		if err != nil {
			return nil, usageErrorf("%s: %v", label, err)
		}
		for _, u := range b.Undecoded {
			fmt.Fprintf(o.ErrOut, "%s: %s\n", label, u)
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
				return nil, usageErrorf("%s is a kustomization: render it first, as kubectl apply -k would: kubectl kustomize %s | kubectl chain --manifests - (or -f -)", name, name)
			}
		}
		entries, err := os.ReadDir(name)
		if err != nil {
			return nil, usageErrorf("reading %s: %v", name, err)
		}
		n := len(out)
		for _, e := range entries {
			if !e.IsDir() && slices.Contains(manifestExts, filepath.Ext(e.Name())) {
				out = append(out, filepath.Join(name, e.Name()))
			}
		}
		if len(out) == n {
			return nil, usageErrorf("%s holds no .yaml, .yml or .json file", name)
		}
	}
	return out, nil
}

// open opens one -f argument: a file, or stdin for "-".
func (o *Options) open(name string) (io.Reader, string, func(), error) {
	if name == "-" {
		return o.In, "standard input", func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, "", nil, usageErrorf("reading %s: %v", name, err)
	}
	return f, name, func() { f.Close() }, nil
}

// readFiles reads the targets from captured files: the same snapshots as
// live, with no cluster, each judged at the capture's own time.
func (o *Options) readFiles() (*targets, error) {
	b, err := o.loadFiles()
	if err != nil {
		return nil, err
	}
	// Any other kind: its type as the files' objects name it, since no
	// discovery is asked offline.
	for i := range o.targets {
		if t := &o.targets[i]; t.kind == kindResource {
			api, ok := b.ResourceAPI(t.typ)
			if !ok {
				return nil, usageErrorf("%s/%s: no object of type %q in %v", t.typ, t.name, t.typ, o.Files)
			}
			t.api = api
		}
	}
	ns := o.namespaceFlag()
	b.Adopt(ns) // an object that names no namespace is in the one asked
	if err := o.resolveFiles(b, ns); err != nil {
		return nil, err
	}
	t := &targets{}
	switch {
	case o.All || o.AllNamespaces || o.Selector != "":
		scope := ns
		if o.AllNamespaces {
			scope = ""
		}
		for _, w := range sortedWorkloads(b, scope) {
			s, err := b.Read(w.Namespace, w.Ref)
			if err != nil {
				return nil, usageErrorf("%v", err)
			}
			if o.selects(s.Workload().GetLabels()) {
				t.snaps = append(t.snaps, s)
			}
		}
		if len(t.snaps) == 0 {
			return nil, &ExitError{Code: ExitNotFound, Err: fmt.Errorf("no workload in %v matches", o.Files)}
		}
	case len(o.refs) > 1:
		for _, ref := range o.refs {
			s, err := b.Read(ns, ref)
			if err != nil {
				return nil, usageErrorf("%v", err)
			}
			s.Via = o.via[ref]
			t.snaps = append(t.snaps, s)
		}
	default:
		var ref chain.Ref
		if len(o.refs) == 1 {
			ref = o.refs[0]
		}
		s, err := b.Read(ns, ref)
		if err != nil {
			return nil, usageErrorf("%v (name one, or pass --all)", err)
		}
		s.Via = o.via[ref]
		t.snaps = append(t.snaps, s)
	}
	return t, nil
}

// namespaceFlag is -n as given: offline, no kubeconfig default applies, and
// an empty namespace matches any in the files.
func (o *Options) namespaceFlag() string {
	if o.ConfigFlags.Namespace == nil {
		return ""
	}
	return *o.ConfigFlags.Namespace
}

// selects applies -l to a Deployment's labels.
func (o *Options) selects(set map[string]string) bool {
	if o.Selector == "" {
		return true
	}
	sel, err := labels.Parse(o.Selector)
	return err == nil && sel.Matches(labels.Set(set))
}
