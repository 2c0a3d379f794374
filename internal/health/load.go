package health

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// expected says, in every "this is not a catalogue" error, what Load reads.
const expected = "expected an argocd-cm ConfigMap in YAML (data keys resource.customizations.health.<group>_<kind>, or resource.customizations holding <group>/<Kind>: {health.lua: ...}) or a folder of <group>/<Kind>/health.lua"

// Load reads the health checks a user keeps for Argo CD, from path: either a
// YAML file holding their argocd-cm ConfigMap (what `kubectl get cm
// argocd-cm -o yaml` prints) or a folder laid out like Argo CD's catalogue.
// Every script is compiled now, so a syntax error is reported here, naming
// the file, the ConfigMap key and the line. Layer the result over Builtin()
// with Over, as Argo CD prefers the user's checks.
func Load(path string) (*Catalogue, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("loading health checks: %w", err)
	}
	if st.IsDir() {
		return loadFolder(os.DirFS(path), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading health checks: %w", err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s: a binary file, not YAML; %s", path, expected)
	}
	cm, err := findConfigMap(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; %s", path, err, expected)
	}
	return loadConfigMap(path, cm)
}

// configMap is the part of a ConfigMap (or of a List of them) Load reads.
type configMap struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Data  map[string]any    `json:"data"`
	Items []json.RawMessage `json:"items"`
}

// errNoConfigMap is wrapped when a YAML file holds no ConfigMap.
var errNoConfigMap = errors.New("no ConfigMap in this file")

// findConfigMap picks the ConfigMap out of a YAML file: its only one, or the
// one named argocd-cm among several (documents separated by "---", or the
// items of a List).
func findConfigMap(data []byte) (*configMap, error) {
	var found []*configMap
	var kinds []string
	add := func(doc []byte) error {
		var cm configMap
		if err := yaml.Unmarshal(doc, &cm); err != nil {
			return fmt.Errorf("not a YAML object: %w", err)
		}
		switch {
		case cm.Kind == "ConfigMap":
			found = append(found, &cm)
		case cm.Kind != "":
			kinds = append(kinds, cm.Kind)
		}
		for _, item := range cm.Items {
			var inner configMap
			if err := yaml.Unmarshal(item, &inner); err == nil && inner.Kind == "ConfigMap" {
				found = append(found, &inner)
			}
		}
		return nil
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not YAML: %w", err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		if err := add(doc); err != nil {
			return nil, err
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && len(kinds) > 0:
		return nil, fmt.Errorf("%w (found kind %s)", errNoConfigMap, strings.Join(kinds, ", "))
	case len(found) == 0:
		return nil, errNoConfigMap
	}
	for _, cm := range found {
		if cm.Metadata.Name == "argocd-cm" {
			return cm, nil
		}
	}
	return nil, fmt.Errorf("%d ConfigMaps and none named argocd-cm", len(found))
}

// override is one group/kind's health settings, as Argo CD's
// ResourceOverride holds them.
type override struct {
	lua    string
	open   bool
	script string
}

// legacyKey is the older single key whose value is YAML of
// "<group>/<Kind>": {health.lua: ..., health.lua.useOpenLibs: ...}.
const legacyKey = "resource.customizations"

// loadConfigMap builds a catalogue from the ConfigMap's data as Argo CD's
// settings manager does (util/settings/settings.go GetResourceOverrides):
// the older single key first, then the per-kind keys, which win.
func loadConfigMap(path string, cm *configMap) (*Catalogue, error) {
	data := map[string]string{}
	for k, v := range cm.Data {
		switch v := v.(type) {
		case string:
			data[k] = v
		case bool, float64, int64:
			data[k] = fmt.Sprint(v) // an unquoted `true`, as in Argo CD's docs
		case nil:
		default:
			return nil, fmt.Errorf("%s (key %s): value is not a string", path, k)
		}
	}
	overrides := map[string]*override{}
	if v := data[legacyKey]; v != "" {
		var legacy map[string]struct {
			HealthLua   string `json:"health.lua"`
			UseOpenLibs bool   `json:"health.lua.useOpenLibs"`
		}
		if err := yaml.Unmarshal([]byte(v), &legacy); err != nil {
			return nil, fmt.Errorf("%s (key %s): %w", path, legacyKey, err)
		}
		for k, o := range legacy {
			overrides[k] = &override{lua: o.HealthLua, open: o.UseOpenLibs,
				script: fmt.Sprintf("%s (key %s, entry %s)", path, legacyKey, k)}
		}
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		typ, group, kind, ok, err := parseKey(k)
		if !ok {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s (key %s): %w", path, k, err)
		}
		if typ != "health" && typ != "useOpenLibs" {
			continue // actions, ignoreDifferences...: not ours
		}
		o := overrides[argoKey(group, kind)]
		if o == nil {
			o = &override{}
			overrides[argoKey(group, kind)] = o
		}
		if typ == "health" {
			o.lua, o.script = data[k], fmt.Sprintf("%s (key %s)", path, k)
			continue
		}
		b, err := strconv.ParseBool(strings.TrimSpace(data[k]))
		if err != nil {
			return nil, fmt.Errorf("%s (key %s): %w", path, k, err)
		}
		o.open = b
	}
	return buildMapLayer(path, cm.Metadata.Name, overrides)
}

// buildMapLayer compiles every override that has a script.
func buildMapLayer(path, name string, overrides map[string]*override) (*Catalogue, error) {
	m := &mapLayer{exact: map[string]*check{}}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys) // Argo CD tries wildcards in map order; we use sorted order
	for _, k := range keys {
		o := overrides[k]
		if o.lua == "" {
			continue // Argo CD skips an override without a script
		}
		libs := strictLibs
		if o.open {
			libs = openLibs
		}
		src := []byte(o.lua)
		c := &check{key: k, script: o.script, libs: libs, source: func() ([]byte, error) { return src, nil }}
		if _, err := c.compiled(); err != nil {
			return nil, err
		}
		m.exact[k] = c
		if isGlob(k) {
			m.wild = append(m.wild, c)
		}
	}
	if len(m.exact) == 0 {
		return nil, fmt.Errorf("%s: ConfigMap %q has no health checks; %s", path, name, expected)
	}
	return &Catalogue{layers: []layer{m}, budget: DefaultBudget}, nil
}

// mapLayer serves the checks of an argocd-cm ConfigMap.
type mapLayer struct {
	exact map[string]*check
	wild  []*check // keys with glob syntax, sorted
}

// find tries the exact key, then each wildcard key, as Argo CD's
// GetHealthScript does with the ConfigMap's overrides.
func (m *mapLayer) find(key string) (*check, error) {
	if c := m.exact[key]; c != nil {
		return c, nil
	}
	for _, c := range m.wild {
		if matchGlob(c.key, key) {
			return c, nil
		}
	}
	return nil, nil
}
