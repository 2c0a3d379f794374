package health

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestReplies checks how a returned value becomes a Result, case by case
// against what Argo CD's ExecuteHealthLua makes of it.
func TestReplies(t *testing.T) {
	tests := []struct {
		kind, lua string
		want      Result // Script filled in below
		is        error  // errors.Is target, nil for success
		errPart   string
	}{
		{"Plain", `return {status = "Healthy", message = "fine"}`, Result{Status: Healthy, Message: "fine"}, nil, ""},
		{"NoMessage", `return {status = "Missing"}`, Result{Status: Missing}, nil, ""},
		// encoding/json matches field names without regard to case.
		{"CapitalKeys", `return {Status = "Suspended", MESSAGE = "paused"}`, Result{Status: Suspended, Message: "paused"}, nil, ""},
		{"ExtraFields", `return {status = "Healthy", message = "m", detail = {1, 2, {x = true}}}`, Result{Status: Healthy, Message: "m"}, nil, ""},
		// The last of several returned values is the one read.
		{"LastValue", `return "ignored", {status = "Degraded", message = "second"}`, Result{Status: Degraded, Message: "second"}, nil, ""},
		// Argo CD: Unknown, "Lua returned an invalid health status".
		{"InvalidStatus", `return {status = "Fine", message = "x"}`,
			Result{Status: Unknown, Message: "Lua returned an invalid health status"}, ErrInvalidStatus, `returned status "Fine"`},
		{"LowercaseStatus", `return {status = "healthy"}`,
			Result{Status: Unknown, Message: "Lua returned an invalid health status"}, ErrInvalidStatus, `returned status "healthy"`},
		{"MessageOnly", `return {message = "no status"}`,
			Result{Status: Unknown, Message: "Lua returned an invalid health status"}, ErrInvalidStatus, `returned status ""`},
		// Argo CD: an empty HealthStatus, no error.
		{"Nil", `local x = 1`, Result{}, ErrNoStatus, "returned nil"},
		{"EmptyTable", `return {}`, Result{}, ErrNoStatus, "returned an empty table"},
		{"List", `return {"Healthy"}`, Result{}, ErrNoStatus, "a list"},
		{"NumberStatus", `return {status = 5, message = "five"}`, Result{}, ErrNoStatus, "not a string"},
		// Argo CD: an error.
		{"String", `return "Healthy"`, Result{}, nil, "expect table output from Lua script, not string"},
		{"Function", `return {status = "Healthy", f = function() end}`, Result{}, nil, "cannot encode function to JSON"},
		{"Cycle", `local t = {status = "Healthy"} t.self = t return t`, Result{}, nil, "recursively nested"},
		{"Mixed", `local t = {"a"} t.status = "Healthy" return t`, Result{}, nil, "mixed or invalid key types"},
		{"Sparse", `return {status = "Healthy", list = {[1] = "a", [3] = "c"}}`, Result{}, nil, "sparse array"},
	}
	data := map[string]any{}
	for _, tc := range tests {
		data["resource.customizations.health.reply.test_"+tc.kind] = tc.lua
	}
	path := writeConfigMap(t, data)
	cat, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			res, ok, err := cat.Check(object("reply.test/v1", tc.kind, nil))
			if !ok {
				t.Fatal("no check")
			}
			want := tc.want
			want.Script = path + " (key resource.customizations.health.reply.test_" + tc.kind + ")"
			if res != want {
				t.Errorf("got %+v, want %+v", res, want)
			}
			switch {
			case tc.errPart == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.errPart != "" && (err == nil || !strings.Contains(err.Error(), tc.errPart)):
				t.Fatalf("error %v, want one containing %q", err, tc.errPart)
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Fatalf("error %v does not wrap %v", err, tc.is)
			}
			if err != nil && !strings.Contains(err.Error(), "health check reply.test/"+tc.kind+" in "+want.Script+": ") {
				t.Errorf("error %q does not name the check and its script", err)
			}
		})
	}
}

// TestObjectInLua checks the object as a script sees it, conversion quirks
// included: integers of every Go width and json.Number (a string in Argo
// CD), nulls dropped from lists, empty lists and maps alike, unsupported Go
// types as nil, and map keys visited in sorted order.
func TestObjectInLua(t *testing.T) {
	path := writeConfigMap(t, map[string]any{
		"resource.customizations.health.conv.test_Obj": `
local s = obj.spec
local keys = {}
for k, _ in pairs(s.labels) do table.insert(keys, k) end
local parts = {
  type(s.i64), tostring(s.i64), type(s.i32), type(s.int), tostring(s.f), type(s.num), tostring(s.num),
  tostring(#s.list), tostring(s.list[2]), tostring(#s.emptyList), tostring(next(s.emptyMap)),
  type(s.strings), tostring(s.yes), table.concat(keys, ","),
}
return {status = "Healthy", message = table.concat(parts, " ")}`,
		"resource.customizations.useOpenLibs.conv.test_Obj": "true",
	})
	cat, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	obj := object("conv.test/v1", "Obj", map[string]any{"spec": map[string]any{
		"i64": int64(3), "i32": int32(4), "int": 5, "f": 2.5, "num": json.Number("12"),
		"list": []any{"a", nil, "c"}, "emptyList": []any{}, "emptyMap": map[string]any{},
		"strings": []string{"not", "json"}, "yes": true,
		"labels": map[string]any{"b": "1", "c": "2", "a": "3"},
	}})
	res, _, err := cat.Check(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := "number 3 number number 2.5 string 12 2 c 0 nil nil true a,b,c"
	if res.Message != want {
		t.Fatalf("script saw %q, want %q", res.Message, want)
	}
}
