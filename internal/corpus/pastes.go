package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Paste is text a user pasted into a public thread (kubectl describe,
// kubectl get tables, events), one or several code blocks of one post, and
// the verdict the thread reached.
type Paste struct {
	Name       string `json:"name"`
	Provenance `json:",inline"`
	// Family is the form of the paste: describe-pod, describe-tail (cut
	// at the top), describe-events (an Events section or rows without
	// their describe), describe-deploy, get-pods (a table, with what
	// came beside it), get-events.
	Family string `json:"family"`
	// Files are the code blocks, in the post's order, under pastes/.
	Files []string `json:"files"`
	Want  Want     `json:"want"`
	// Miss says why the thread's verdict cannot be reached from this
	// text (what the paste lacks); "" when it must be.
	Miss string `json:"miss,omitempty"`
}

// pasteFamilies are the values Family takes.
var pasteFamilies = map[string]bool{"describe-pod": true, "describe-tail": true, "describe-events": true,
	"describe-deploy": true, "get-pods": true, "get-events": true}

// LoadPastes reads pastes/index.yaml under root.
func LoadPastes(root string) ([]Paste, error) {
	path := filepath.Join(root, "pastes", "index.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ps []Paste
	if err := yaml.UnmarshalStrict(data, &ps); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := map[string]bool{}
	for i, p := range ps {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("%s: paste %d (%s): %w", path, i, p.Name, err)
		}
		if names[p.Name] {
			return nil, fmt.Errorf("%s: paste %q twice", path, p.Name)
		}
		names[p.Name] = true
	}
	return ps, nil
}

func (p Paste) check() error {
	if err := p.Provenance.check(); err != nil {
		return err
	}
	switch {
	case p.Name == "":
		return fmt.Errorf("no name")
	case !pasteFamilies[p.Family]:
		return fmt.Errorf("family %q is not one of describe-pod, describe-tail, describe-events, describe-deploy, get-pods, get-events", p.Family)
	case len(p.Files) == 0:
		return fmt.Errorf("no files")
	case p.Want.Health == "" && (p.Want.Link == "" || p.Want.Cause == ""):
		return fmt.Errorf("want names no link and cause, nor a health")
	}
	return nil
}

// Text is the paste as one input, its blocks in order, as `cat FILES |
// kubectl chain -f -` reads them.
func (p Paste) Text(root string) (string, error) {
	var b strings.Builder
	for _, f := range p.Files {
		data, err := os.ReadFile(filepath.Join(root, "pastes", f))
		if err != nil {
			return "", err
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String(), nil
}
