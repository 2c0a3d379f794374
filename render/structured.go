package render

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// JSON prints v indented with a trailing newline, for CI and scripts.
// HTML escaping is off: messages such as "<none>" stay as the cluster said.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding json: %w", err)
	}
	return nil
}

// YAML prints v through its JSON form (sigs.k8s.io/yaml), so the field
// names and omitted fields are exactly those of the JSON schema.
func YAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding yaml: %w", err)
	}
	_, err = w.Write(b)
	return err
}
