package health

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// healthFile is the script's name in every catalogue folder.
const healthFile = "health.lua"

// fsLayer serves checks laid out as Argo CD's resource_customizations
// folder: <group>/<Kind>/health.lua (or <Kind>/health.lua for a core kind),
// with "_" in a folder name as a wildcard. Argo CD opens the standard
// libraries to these scripts, so they get openLibs.
type fsLayer struct {
	fsys  fs.FS
	label func(p string) string // how Result.Script names a script path

	mu     sync.Mutex
	checks map[string]*check // by script path

	wildOnce sync.Once
	wild     []string // folders with "_" that hold a health.lua, sorted
	wildErr  error
}

func newFSLayer(fsys fs.FS, label func(string) string) *fsLayer {
	return &fsLayer{fsys: fsys, label: label, checks: map[string]*check{}}
}

// find looks for <key>/health.lua, then for the first wildcard folder, in
// sorted order, that matches key: Argo CD's order.
func (f *fsLayer) find(key string) (*check, error) {
	p := key + "/" + healthFile
	if key != "" && fs.ValidPath(p) {
		_, err := fs.Stat(f.fsys, p)
		if err == nil {
			return f.check(key, p), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	dirs, err := f.wildcards()
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if matchFolder(d, key) {
			return f.check(d, d+"/"+healthFile), nil
		}
	}
	return nil, nil
}

// check returns the one check value for a script path, so that each script
// is compiled once however many kinds it serves.
func (f *fsLayer) check(key, p string) *check {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.checks[p]; c != nil {
		return c
	}
	c := &check{key: key, script: f.label(p), libs: openLibs,
		source: func() ([]byte, error) { return fs.ReadFile(f.fsys, p) }}
	f.checks[p] = c
	return c
}

// wildcards lists, once, the folders whose path holds a "_". Only the first
// two levels are read: a key has at most two segments, so deeper folders
// (testdata among them) can never match.
func (f *fsLayer) wildcards() ([]string, error) {
	f.wildOnce.Do(func() {
		scripts, err := scriptPaths(f.fsys)
		if err != nil {
			f.wildErr = err
			return
		}
		for _, p := range scripts {
			if d := path.Dir(p); strings.Contains(d, "_") {
				f.wild = append(f.wild, d)
			}
		}
		sort.Strings(f.wild)
	})
	return f.wild, f.wildErr
}

// scriptPaths lists every health.lua one or two folders deep, the only
// places a lookup can reach.
func scriptPaths(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		depth := strings.Count(p, "/")
		if d.IsDir() {
			if p != "." && depth >= 1 {
				// <group>/<Kind>: look inside, but no deeper.
				return walkFiles(fsys, p, &out)
			}
			return nil
		}
		if depth == 1 && path.Base(p) == healthFile {
			out = append(out, p) // <Kind>/health.lua, a core kind
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the health check folders: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// walkFiles adds dir/health.lua to out when it exists, and tells WalkDir
// not to descend further.
func walkFiles(fsys fs.FS, dir string, out *[]string) error {
	p := dir + "/" + healthFile
	if st, err := fs.Stat(fsys, p); err == nil && !st.IsDir() {
		*out = append(*out, p)
	}
	return fs.SkipDir
}

// loadFolder reads a user's folder of <group>/<Kind>/health.lua scripts and
// compiles each now, so that a syntax error is reported at load time.
func loadFolder(fsys fs.FS, root string) (*Catalogue, error) {
	scripts, err := scriptPaths(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	if len(scripts) == 0 {
		return nil, fmt.Errorf("%s: no health checks in this folder: expected <group>/<Kind>/health.lua (or <Kind>/health.lua for a core kind), as in argo-cd's resource_customizations", root)
	}
	fl := newFSLayer(fsys, func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) })
	for _, p := range scripts {
		if _, err := fl.check(path.Dir(p), p).compiled(); err != nil {
			return nil, err
		}
	}
	return &Catalogue{layers: []layer{fl}, budget: DefaultBudget}, nil
}
