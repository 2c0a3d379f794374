package health

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// This file converts values across the Go/Lua boundary exactly as Argo CD
// v3.5.8 does (util/lua/lua.go decodeValue on the way in, gopher-json's
// Encode followed by encoding/json on the way out), because several checks'
// messages depend on the details: an empty list and an empty map both
// arrive as an empty table, a JSON null inside a list is dropped, integers
// arrive as Lua numbers.

// toLua converts one value of an unstructured object into a Lua value.
// Types Argo CD does not convert (anything but JSON's types and Go's int,
// int32, int64) become nil, as they do there. Map keys are inserted in
// sorted order: Argo CD inserts them in Go's random map order, so a
// script's pairs() loop sees one of the orders Argo CD could show, and the
// same one on every run.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case json.Number:
		return lua.LString(v) // a string, as in Argo CD
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, item := range v {
			t.Append(toLua(l, item)) // Append skips nil, shifting the rest
		}
		return t
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t := l.CreateTable(0, len(v))
		for _, k := range keys {
			t.RawSetH(lua.LString(k), toLua(l, v[k]))
		}
		return t
	}
	return lua.LNil
}

// reply is what Argo CD decodes a script's returned table into: its
// health.HealthStatus, whose JSON names are status and message.
type reply struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// readReply turns a script's last returned value into a status and message.
// A table goes through JSON as in Argo CD, so field names match without
// regard to case and any nested value JSON cannot hold is an error. A field
// of the wrong type, an empty table or nil give ErrNoStatus; a status
// outside the six gives ErrInvalidStatus.
func readReply(v lua.LValue) (Status, string, error) {
	switch v.Type() {
	case lua.LTNil:
		return "", "", fmt.Errorf("returned nil: %w", ErrNoStatus)
	case lua.LTTable:
	default:
		return "", "", fmt.Errorf("expect table output from Lua script, not %s", v.Type())
	}
	data, err := json.Marshal(fromLua{v: v, seen: map[*lua.LTable]bool{}})
	if err != nil {
		return "", "", fmt.Errorf("returned a table JSON cannot hold: %w", unwrapMarshal(err))
	}
	var r reply
	if err := json.Unmarshal(data, &r); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return "", "", fmt.Errorf("returned %s: %w", describeTable(data), ErrNoStatus)
		}
		return "", "", fmt.Errorf("returned an unreadable table: %w", err)
	}
	st := Status(r.Status)
	if !st.Valid() {
		return Unknown, "Lua returned an invalid health status",
			fmt.Errorf("returned status %q, not one of Healthy, Progressing, Degraded, Suspended, Missing, Unknown: %w", r.Status, ErrInvalidStatus)
	}
	return st, r.Message, nil
}

// describeTable says in a few words what a table without a usable status
// looked like once encoded.
func describeTable(data []byte) string {
	switch {
	case string(data) == "[]":
		return "an empty table"
	case len(data) > 0 && data[0] == '[':
		return "a list, not a table with a status field"
	}
	return "a status or message that is not a string"
}

// unwrapMarshal drops encoding/json's "error calling MarshalJSON" wrapper so
// the message names the Lua problem.
func unwrapMarshal(err error) error {
	var me *json.MarshalerError
	if errors.As(err, &me) && me.Err != nil {
		return me.Err
	}
	return err
}

var (
	errNestedTable = errors.New("cannot encode recursively nested tables to JSON")
	errSparseArray = errors.New("cannot encode sparse array")
	errMixedKeys   = errors.New("cannot encode mixed or invalid key types")
)

// fromLua marshals a Lua value to JSON with gopher-json's rules, which Argo
// CD applies to every returned table: a table whose first key is 1 must be
// a list 1..n, one whose first key is a string must have only string keys,
// an empty table is an empty list, and a table met twice is refused (even
// when it is shared, not cyclic).
type fromLua struct {
	v    lua.LValue
	seen map[*lua.LTable]bool
}

// MarshalJSON implements json.Marshaler.
func (f fromLua) MarshalJSON() ([]byte, error) {
	switch v := f.v.(type) {
	case lua.LBool:
		return json.Marshal(bool(v))
	case lua.LNumber:
		return json.Marshal(float64(v))
	case lua.LString:
		return json.Marshal(string(v))
	case *lua.LNilType:
		return []byte("null"), nil
	case *lua.LTable:
		if f.seen[v] {
			return nil, errNestedTable
		}
		f.seen[v] = true
		key, val := v.Next(lua.LNil)
		switch key.Type() {
		case lua.LTNil:
			return []byte("[]"), nil
		case lua.LTNumber:
			var list []fromLua
			for want := lua.LNumber(1); key != lua.LNil; want++ {
				if key.Type() != lua.LTNumber {
					return nil, errMixedKeys
				}
				if key != want {
					return nil, errSparseArray
				}
				list = append(list, fromLua{v: val, seen: f.seen})
				key, val = v.Next(key)
			}
			return json.Marshal(list)
		case lua.LTString:
			obj := map[string]fromLua{}
			for key != lua.LNil {
				if key.Type() != lua.LTString {
					return nil, errMixedKeys
				}
				obj[string(key.(lua.LString))] = fromLua{v: val, seen: f.seen}
				key, val = v.Next(key)
			}
			return json.Marshal(obj)
		}
		return nil, errMixedKeys
	}
	return nil, fmt.Errorf("cannot encode %s to JSON", f.v.Type())
}
