package health

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSandbox runs hostile and runaway user checks, each in the strict
// library set Argo CD gives argocd-cm checks and in the open set
// (useOpenLibs, and every built-in check): each must fail with an error
// that names the check and its ConfigMap key, never touch the host, never
// hang and never panic.
func TestSandbox(t *testing.T) {
	dir := t.TempDir()
	// A Lua file where require's default path would find it.
	writeFile(t, dir, "evil.lua", `return {status = "Healthy", message = "loaded from disk"}`)
	t.Chdir(dir)

	const noCall = "attempt to call a non-function object"
	tests := []struct {
		kind, lua string
		want      string // in the error message, strict libraries
		wantOpen  string // in the error message, open libraries
	}{
		{"IoOpen", `local f = io.open("/etc/passwd") return {status = "Healthy", message = f:read("*a")}`,
			"non-table object(nil) with key 'open'", "non-table object(nil) with key 'open'"},
		{"OsExecute", `os.execute("touch pwned") return {status = "Healthy"}`,
			"non-table object(nil) with key 'execute'", noCall},
		{"RequiredOsExecute", `local os = require("os") os.execute("touch pwned") return {status = "Healthy"}`, noCall, noCall},
		{"OsExit", `os.exit(3) return {status = "Healthy"}`, "non-table object(nil) with key 'exit'", noCall},
		{"OsGetenv", `return {status = "Healthy", message = require("os").getenv("HOME")}`, noCall, noCall},
		{"OsRemove", `require("os").remove("evil.lua") return {status = "Healthy"}`, noCall, noCall},
		{"Dofile", `return dofile("evil.lua")`, noCall, noCall},
		{"Loadfile", `return loadfile("evil.lua")()`, noCall, noCall},
		{"RequireIo", `local io = require("io") return {status = "Healthy"}`, "module io not found", "module io not found"},
		{"RequireFile", `return require("evil")`, "module evil not found", "module evil not found"},
		{"RequireDebug", `return require("debug")`, "module debug not found", "module debug not found"},
		{"Loadlib", `return package.loadlib("x.so", "f")()`, "loadlib is not supported", "loadlib is not supported"},
		{"Recursion", `local function f() return 1 + f() end return {status = f()}`, "stack overflow", "stack overflow"},
		{"Unpack", `local t = {} for i = 1, 10000 do t[i] = i end return {status = select("#", unpack(t))}`, "registry overflow", "registry overflow"},
		{"Error", `error("broken on purpose")`, "line 1: broken on purpose", "line 1: broken on purpose"},
		{"Loop", `while true do end`, "timed out after 100ms", "timed out after 100ms"},
		{"PcallLoop", `while true do pcall(function() while true do end end) end`, "timed out", "timed out"},
		{"CoroutineLoop", `coroutine.wrap(function() while true do end end)()`, "non-table object(nil) with key 'wrap'", "timed out"},
		{"RepeatBomb", `return {status = string.rep("x", 1e12)}`, "non-table object(nil) with key 'rep'", "over the 16777216-byte limit"},
	}
	data := map[string]any{}
	for _, tc := range tests {
		data["resource.customizations.health.sandbox.test_"+tc.kind] = tc.lua
		data["resource.customizations.health.sandbox.test_Open"+tc.kind] = tc.lua
		data["resource.customizations.useOpenLibs.sandbox.test_Open"+tc.kind] = "true"
	}
	path := writeConfigMap(t, data)
	cat, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// The scripts meant to run out of time get a tenth of a second; the
	// others ten seconds, so that on a busy machine they still fail by
	// their own limit (a registry or call stack overflow), not the clock.
	const short, long = 100 * time.Millisecond, 10 * time.Second
	for _, tc := range tests {
		for i, kind := range []string{tc.kind, "Open" + tc.kind} {
			want := tc.want
			if i == 1 {
				want = tc.wantOpen
			}
			timeout := strings.Contains(want, "timed out")
			budget := long
			if timeout {
				budget = short
			}
			t.Run(kind, func(t *testing.T) {
				start := time.Now()
				res, ok, err := cat.WithBudget(budget).Check(object("sandbox.test/v1", kind, nil))
				took := time.Since(start)
				if !ok {
					t.Fatal("no check found")
				}
				if err == nil {
					t.Fatalf("no error; result %+v", res)
				}
				key := "resource.customizations.health.sandbox.test_" + kind
				for _, part := range []string{"health check sandbox.test/" + kind, path, key, want} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not contain %q", err, part)
					}
				}
				var se *ScriptError
				if !errors.As(err, &se) || se.Script != path+" (key "+key+")" {
					t.Errorf("error is not a *ScriptError naming %s (key %s): %#v", path, key, err)
				}
				if got := errors.Is(err, context.DeadlineExceeded); got != timeout {
					t.Errorf("errors.Is(err, context.DeadlineExceeded) = %v, want %v", got, timeout)
				}
				if took > budget+grace+time.Second {
					t.Errorf("took %s, budget %s", took, budget)
				}
				if res.Status != "" {
					t.Errorf("a failed check gave status %q", res.Status)
				}
			})
		}
	}
	for _, name := range []string{"pwned"} {
		if _, err := os.Stat(name); err == nil {
			t.Errorf("a check created %s", name)
		}
	}
	if _, err := os.Stat("evil.lua"); err != nil {
		t.Errorf("a check removed evil.lua: %v", err)
	}
}

// TestSandboxAllows checks what a script may still do: read the clock
// through require("os") (strict) or os (open), and print without writing
// anywhere.
func TestSandboxAllows(t *testing.T) {
	path := writeConfigMap(t, map[string]any{
		"resource.customizations.health.ok.test_Clock":          `local os = require("os") if os.time() > 0 and os.date("!%Y", 0) == "1970" then return {status = "Healthy", message = "clock"} end`,
		"resource.customizations.health.ok.test_OpenClock":      `if os.time({year="2024", month="01", day="02"}) > 0 then return {status = "Healthy", message = string.upper("clock")} end`,
		"resource.customizations.useOpenLibs.ok.test_OpenClock": true,
		"resource.customizations.health.ok.test_Print":          `print("must not reach stdout") return {status = "Suspended", message = "printed"}`,
		"resource.customizations.health.ok.test_NoGlobalOs":     `return {status = "Healthy", message = type(os) .. " " .. type(string) .. " " .. type(table)}`,
	})
	cat, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind    string
		status  Status
		message string
	}{
		{"Clock", Healthy, "clock"},
		{"OpenClock", Healthy, "CLOCK"},
		{"Print", Suspended, "printed"},
		// Argo CD's strict set: no os global, no string library.
		{"NoGlobalOs", Healthy, "nil nil table"},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			res, ok, err := cat.Check(object("ok.test/v1", tc.kind, nil))
			if !ok || err != nil {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
			if res.Status != tc.status || res.Message != tc.message {
				t.Fatalf("got %s %q, want %s %q", res.Status, res.Message, tc.status, tc.message)
			}
		})
	}
}

// TestRunawayGoCall: a single Go call that ignores the VM's context (a
// pattern match that backtracks for about a second) still returns within
// the budget plus the grace, as a timeout naming the script.
func TestRunawayGoCall(t *testing.T) {
	path := writeConfigMap(t, map[string]any{
		"resource.customizations.health.slow.test_Pattern":      `string.find(string.rep("a", 20), string.rep("a?", 20) .. string.rep("a", 20) .. "b") return {status = "Healthy"}`,
		"resource.customizations.useOpenLibs.slow.test_Pattern": true,
	})
	cat, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 20 * time.Millisecond
	start := time.Now()
	_, ok, err := cat.WithBudget(budget).Check(object("slow.test/v1", "Pattern", nil))
	took := time.Since(start)
	if !ok || err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ok=%v err=%v, want a timeout", ok, err)
	}
	if !strings.Contains(err.Error(), "did not stop") || !strings.Contains(err.Error(), "key resource.customizations.health.slow.test_Pattern") {
		t.Errorf("error %q should say the script did not stop and name its key", err)
	}
	if took > budget+grace+time.Second {
		t.Errorf("took %s; budget %s, grace %s", took, budget, grace)
	}
}
