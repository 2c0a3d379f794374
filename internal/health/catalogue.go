package health

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/resource_customizations"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Catalogue is a set of health checks looked up by API group and kind. It
// is made of layers searched in order, each exact key first and then its
// wildcards, which is Argo CD's order: the user's exact check, the user's
// wildcard checks, the built-in exact check, the built-in wildcard folders.
// A Catalogue is safe for concurrent use.
type Catalogue struct {
	layers []layer
	budget time.Duration
}

// layer is one source of checks: Argo CD's embedded folders, a user's
// folder, or a user's argocd-cm ConfigMap.
type layer interface {
	// find returns the check for an Argo CD key ("group/Kind", or "Kind"
	// for the core group), or nil when the layer has none.
	find(key string) (*check, error)
}

// check is one script, compiled at most once.
type check struct {
	key    string // the group/kind or pattern it was written for
	script string // where it came from, for Result.Script and errors
	libs   libraries
	source func() ([]byte, error)

	once  sync.Once
	proto *lua.FunctionProto
	err   error
}

// compiled returns the script's bytecode, parsing it on first use.
func (c *check) compiled() (*lua.FunctionProto, error) {
	c.once.Do(func() {
		src, err := c.source()
		if err != nil {
			c.err = fmt.Errorf("health check %s in %s: %w", c.key, c.script, err)
			return
		}
		c.proto, c.err = compile(src, c.key, c.script)
	})
	return c.proto, c.err
}

// compile parses and compiles a script; a syntax error names the check, its
// origin and the line.
func compile(src []byte, key, script string) (proto *lua.FunctionProto, err error) {
	fail := func(line int, msg string, cause error) error {
		return &ScriptError{Key: key, Script: script, Line: line, Msg: msg, Err: cause}
	}
	defer func() {
		if r := recover(); r != nil {
			proto, err = nil, fail(0, fmt.Sprintf("panic in lua compiler: %v", r), errors.New("lua compiler panic"))
		}
	}()
	chunk, err := parse.Parse(bytes.NewReader(src), chunkName)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			if pe.Pos.Line == parse.EOF {
				return nil, fail(0, "at end of script: "+pe.Message, err)
			}
			return nil, fail(pe.Pos.Line, fmt.Sprintf("%s near %q", pe.Message, pe.Token), err)
		}
		return nil, fail(0, err.Error(), err)
	}
	proto, err = lua.Compile(chunk, chunkName)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, fail(ce.Line, ce.Message, err)
		}
		return nil, fail(0, err.Error(), err)
	}
	return proto, nil
}

// argoKey is Argo CD's key for a kind (GetConfigMapKey): "group/Kind", or
// the bare kind for the core group.
func argoKey(group, kind string) string {
	if group == "" {
		return kind
	}
	return group + "/" + kind
}

var builtin = sync.OnceValue(func() *Catalogue {
	return &Catalogue{
		layers: []layer{newFSLayer(resource_customizations.Embedded, func(p string) string {
			return "argo-cd " + Version() + " " + p
		})},
		budget: DefaultBudget,
	}
})

// Builtin returns Argo CD's own catalogue, embedded in the binary. It is
// shared and costs nothing until a check is looked up: the folders are
// indexed, and each script compiled, on first use.
func Builtin() *Catalogue { return builtin() }

// Over returns a catalogue that looks in c first and then in base, the way
// Argo CD prefers a user's argocd-cm checks to its built-in ones. The
// budget is c's; a nil base adds nothing.
func (c *Catalogue) Over(base *Catalogue) *Catalogue {
	if base == nil {
		return c.WithBudget(c.budget)
	}
	layers := append(append([]layer{}, c.layers...), base.layers...)
	return &Catalogue{layers: layers, budget: c.budget}
}

// WithBudget returns a copy of c whose checks may each run for d (Argo CD
// allows one second, DefaultBudget).
func (c *Catalogue) WithBudget(d time.Duration) *Catalogue {
	return &Catalogue{layers: c.layers, budget: d}
}

// find returns the first layer's check for group and kind.
func (c *Catalogue) find(group, kind string) (*check, error) {
	key := argoKey(group, kind)
	for _, l := range c.layers {
		ch, err := l.find(key)
		if err != nil || ch != nil {
			return ch, err
		}
	}
	return nil, nil
}

// Has reports whether some check covers group and kind, exactly or through
// a wildcard. It compiles nothing.
func (c *Catalogue) Has(group, kind string) bool {
	ch, err := c.find(group, kind)
	return err == nil && ch != nil
}

// Script returns where the check for group and kind comes from (as in
// Result.Script), or "" when there is none, so that a report can cite the
// script without running it.
func (c *Catalogue) Script(group, kind string) string {
	ch, err := c.find(group, kind)
	if err != nil || ch == nil {
		return ""
	}
	return ch.script
}

// Check runs the check for obj's group and kind. The bool is false when no
// check covers the kind (and then Result and error are zero). A script that
// does not compile, fails, runs past the budget or returns something other
// than a health table gives a *ScriptError naming it. When that error wraps
// ErrInvalidStatus or ErrNoStatus, the Result holds what Argo CD itself
// would show (Unknown with its message, or an empty status).
func (c *Catalogue) Check(obj *unstructured.Unstructured) (Result, bool, error) {
	if obj == nil || obj.Object == nil {
		return Result{}, false, errors.New("health check of a nil object")
	}
	gvk := obj.GroupVersionKind()
	ch, err := c.find(gvk.Group, gvk.Kind)
	if err != nil {
		return Result{}, false, fmt.Errorf("looking up the health check for %s: %w", argoKey(gvk.Group, gvk.Kind), err)
	}
	if ch == nil {
		return Result{}, false, nil
	}
	proto, err := ch.compiled()
	if err != nil {
		return Result{Script: ch.script}, true, err
	}
	budget := c.budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	out := run(proto, ch.libs, obj.Object, budget)
	res := Result{Status: out.status, Message: out.message, Script: ch.script}
	if out.err != nil {
		return res, true, &ScriptError{
			Key: argoKey(gvk.Group, gvk.Kind), Script: ch.script,
			Line: out.line, Msg: out.msg, Err: out.err,
		}
	}
	return res, true, nil
}
