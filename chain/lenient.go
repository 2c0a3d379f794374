package chain

import (
	"maps"
	"slices"
)

// Lenient decodes obj with decode, which fills its result only when it
// succeeds. Should the whole object not decode, each field is tried
// alone (each of metadata's, spec's and status's, and the others at the
// top, as an Event's), and those that do not fit their type (a map where
// a list is meant, a timestamp in another form) are left out, so one odd
// field does not lose the object: the fields left out are returned
// ("status.conditions"), to be noted where the object is walked. obj is
// not changed.
func Lenient(obj map[string]any, decode func(map[string]any) error) (dropped []string, err error) {
	if err = decode(obj); err == nil {
		return nil, nil
	}
	keep := maps.Clone(obj)
	try := func(m map[string]any) bool {
		m["apiVersion"], m["kind"] = obj["apiVersion"], obj["kind"]
		return decode(m) == nil
	}
	for _, top := range slices.Sorted(maps.Keys(obj)) {
		if top == "apiVersion" || top == "kind" {
			continue
		}
		fields, ok := obj[top].(map[string]any)
		if !ok || top != "metadata" && top != "spec" && top != "status" {
			if !try(map[string]any{top: obj[top]}) {
				delete(keep, top)
				dropped = append(dropped, top)
			}
			continue
		}
		kept := maps.Clone(fields)
		for _, key := range slices.Sorted(maps.Keys(fields)) {
			if !try(map[string]any{top: map[string]any{key: fields[key]}}) {
				delete(kept, key)
				dropped = append(dropped, top+"."+key)
			}
		}
		keep[top] = kept
	}
	if len(dropped) == 0 {
		return nil, err
	}
	if err := decode(keep); err != nil {
		return nil, err
	}
	return dropped, nil
}
