package health

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// DefaultBudget is how long one check may run: Argo CD gives each script a
// context with a one-second timeout.
const DefaultBudget = time.Second

// grace is how long Check still waits, once the budget is spent, for the VM
// to notice its cancelled context. The VM looks at it before every Lua
// instruction; only a single long Go call (a huge string.rep, a pathological
// pattern) can outlast this, and then Check returns without it.
const grace = 200 * time.Millisecond

// Limits on one VM: the ceilings Argo CD gets from gopher-lua's defaults,
// set here so that a runaway recursion ends in a Lua error ("stack
// overflow"), never in a growing stack. Unlike the defaults, both stacks
// start small and grow up to the ceiling: a VM is made for every check, and
// a fixed 5120-slot registry was most of its cost.
const (
	callStackSize    = 256      // Lua call depth
	registryMaxSize  = 256 * 20 // data stack slots
	registryInitSize = 256
	maxRepeat        = 1 << 24 // bytes string.rep may build (16 MiB)
)

// chunkName is the source name compiled scripts carry; runtime messages
// start with it, and ScriptError turns "health.lua:12:" into "line 12".
const chunkName = "health.lua"

// libraries tells which Lua libraries a script gets.
//
// Argo CD v3.5.8 (util/lua/lua.go runLua) runs built-in checks, and user
// checks whose resource.customizations.useOpenLibs.<group>_<kind> is true,
// in a VM with every gopher-lua library open, then opens package, base and
// table again and registers its "safe os" (time and date) as a preload.
// Its OpenSafeOs registers under the name "table", which already exists,
// so it changes nothing: the global os stays gopher-lua's whole os library
// (execute, exit, remove...), io stays open, and only require("os") gives
// the safe one. Other user checks get package, base and table only: no os
// global, no string or math, require("os") for the clock. We keep those two
// shapes minus everything that touches the host: os, global or required,
// is gopher-lua's own time, date, clock and difftime (so os.time accepts
// numeric strings everywhere, where Argo CD's required os ignores them).
type libraries int

const (
	// strictLibs: package, base, table; require("os") gives the clock.
	strictLibs libraries = iota
	// openLibs: also string, math and coroutine, and os as a global.
	openLibs
)

// ScriptError is a check that failed to compile or to run. It names the
// check and where it came from, so that the reader can open the script.
type ScriptError struct {
	// Key is the group/kind (or wildcard pattern) the check is for.
	Key string
	// Script is where the check came from, as in Result.Script.
	Script string
	// Line is the script line at fault, 0 when unknown.
	Line int
	// Msg says what went wrong.
	Msg string
	// Err is the underlying error: gopher-lua's, context.DeadlineExceeded,
	// ErrInvalidStatus or ErrNoStatus.
	Err error
}

// Error implements error.
func (e *ScriptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("health check %s in %s: line %d: %s", e.Key, e.Script, e.Line, e.Msg)
	}
	return fmt.Sprintf("health check %s in %s: %s", e.Key, e.Script, e.Msg)
}

// Unwrap lets errors.Is find context.DeadlineExceeded, ErrInvalidStatus and
// ErrNoStatus.
func (e *ScriptError) Unwrap() error { return e.Err }

// clockFuncs are the os functions a script may call: gopher-lua's own time,
// date, clock and difftime, taken from its os library so that they behave as
// they do for Argo CD's built-in checks (os.time accepts numeric strings,
// which apps.kruise.io/AdvancedCronJob relies on). Argo CD's restricted os
// has only time and date; clock and difftime read nothing of the host.
var clockFuncs = sync.OnceValue(func() map[string]lua.LGFunction {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	l.Push(l.NewFunction(lua.OpenOs))
	l.Push(lua.LString(lua.OsLibName))
	l.Call(1, 1)
	mod := l.CheckTable(-1)
	out := map[string]lua.LGFunction{}
	for _, name := range []string{"time", "date", "clock", "difftime"} {
		if fn, ok := mod.RawGetString(name).(*lua.LFunction); ok && fn.IsG {
			out[name] = fn.GFunction
		}
	}
	return out
})

// newState builds a sandboxed VM: no io, debug or channel library, no
// dofile, loadfile or file-backed require, print that writes nowhere, and
// os limited to the clock.
func newState(ctx context.Context, libs libraries) *lua.LState {
	l := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		MinimizeStackMemory: true,
		RegistrySize:        registryInitSize,
		RegistryMaxSize:     registryMaxSize,
	})
	open := func(name string, fn lua.LGFunction) {
		l.Push(l.NewFunction(fn))
		l.Push(lua.LString(name))
		l.Call(1, 0)
	}
	open(lua.LoadLibName, lua.OpenPackage)
	open(lua.BaseLibName, lua.OpenBase)
	open(lua.TabLibName, lua.OpenTable)
	if libs == openLibs {
		open(lua.StringLibName, lua.OpenString)
		open(lua.MathLibName, lua.OpenMath)
		open(lua.CoroutineLibName, lua.OpenCoroutine)
		if str, ok := l.GetGlobal(lua.StringLibName).(*lua.LTable); ok {
			str.RawSetString("rep", l.NewFunction(boundedRep))
		}
	}
	for _, name := range []string{"dofile", "loadfile", "collectgarbage", "_printregs"} {
		l.SetGlobal(name, lua.LNil)
	}
	l.SetGlobal("print", l.NewFunction(func(*lua.LState) int { return 0 }))

	// require: preloaded modules only, never a file on package.path.
	pkg := l.GetGlobal(lua.LoadLibName).(*lua.LTable)
	pkg.RawSetString("path", lua.LString(""))
	pkg.RawSetString("cpath", lua.LString(""))
	if loaders, ok := pkg.RawGetString("loaders").(*lua.LTable); ok {
		for i := loaders.Len(); i > 1; i-- {
			loaders.RawSetInt(i, lua.LNil)
		}
	}

	clock := l.SetFuncs(l.NewTable(), clockFuncs())
	l.PreloadModule(lua.OsLibName, func(l *lua.LState) int {
		l.Push(clock)
		return 1
	})
	if libs == openLibs {
		l.SetGlobal(lua.OsLibName, clock)
	}
	l.SetContext(ctx)
	return l
}

// boundedRep is string.rep with a ceiling on the result, so that a script
// cannot ask for more memory than the machine has in a single call.
func boundedRep(l *lua.LState) int {
	s := l.CheckString(1)
	n := l.CheckInt(2)
	if n <= 0 || s == "" {
		l.Push(lua.LString(""))
		return 1
	}
	if len(s) > maxRepeat/n {
		l.RaiseError("string.rep: result of %d × %d bytes is over the %d-byte limit", n, len(s), maxRepeat)
	}
	l.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// outcome is one run's result, carried back from the VM's goroutine.
type outcome struct {
	status  Status
	message string
	line    int
	err     error
	msg     string
}

// execute runs a compiled check on obj in a fresh VM and reads its reply.
// It never panics: a panic anywhere in the VM becomes an error.
func execute(ctx context.Context, proto *lua.FunctionProto, libs libraries, obj map[string]any) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{err: fmt.Errorf("panic in lua vm: %v", r)}
			out.msg = out.err.Error()
		}
	}()
	l := newState(ctx, libs)
	defer l.Close()
	l.SetGlobal("obj", toLua(l, obj))
	l.SetGlobal("actionParams", l.NewTable()) // Argo CD sets it for every script
	l.Push(l.NewFunctionFromProto(proto))
	if err := l.PCall(0, lua.MultRet, nil); err != nil {
		if ctx.Err() != nil {
			return outcome{err: ctx.Err(), msg: "timed out"}
		}
		line, msg := luaMessage(err)
		return outcome{err: err, line: line, msg: msg}
	}
	st, msg, err := readReply(l.Get(-1)) // the last value returned, as in Argo CD
	if err != nil {
		return outcome{status: st, message: msg, err: err, msg: err.Error()}
	}
	return outcome{status: st, message: msg}
}

// run executes proto within budget. If the VM does not come back in the
// budget plus a short grace, run returns a timeout and leaves the VM's
// goroutine to finish on its own: a check can be slow, never a hang.
func run(proto *lua.FunctionProto, libs libraries, obj map[string]any, budget time.Duration) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	done := make(chan outcome, 1)
	go func() { done <- execute(ctx, proto, libs, obj) }()
	select {
	case out := <-done:
		return fixTimeout(out, budget)
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case out := <-done:
		return fixTimeout(out, budget)
	case <-t.C:
		return outcome{err: context.DeadlineExceeded, msg: fmt.Sprintf("timed out after %s (the script did not stop)", budget)}
	}
}

// fixTimeout words a deadline error with the budget that was spent.
func fixTimeout(out outcome, budget time.Duration) outcome {
	if errors.Is(out.err, context.DeadlineExceeded) {
		out.msg = fmt.Sprintf("timed out after %s", budget)
	}
	return out
}

// luaMessage splits a gopher-lua error into the script line and the message,
// dropping the stack trace as Argo CD does.
func luaMessage(err error) (int, string) {
	var apiErr *lua.ApiError
	msg := err.Error()
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg = apiErr.Object.String()
	}
	if rest, ok := strings.CutPrefix(msg, chunkName+":"); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return 0, msg
}
