// Package labhome finds a lab's state directory: the one thing of the lab
// the diagnosis binary needs (a running lab is the default cluster of a user
// who has none), kept apart from lab so that binary links none of it.
package labhome

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// EnvHome overrides the directory that holds every lab's state directory.
const EnvHome = "KUBECTL_CHAIN_LAB_HOME"

// validName keeps lab names usable as directory names and in cert subjects.
var validName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidateName rejects names that cannot be a directory or a DNS label.
func ValidateName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("invalid lab name %q: use lowercase letters, digits and '-' (at most 63)", name)
	}
	return nil
}

// Dir is the state directory of the lab called name: stateDir when set, else
// $KUBECTL_CHAIN_LAB_HOME/NAME, else $XDG_STATE_HOME/kubectl-chain/labs/NAME,
// else ~/.local/state/kubectl-chain/labs/NAME. getenv is os.Getenv in main.
func Dir(name, stateDir string, getenv func(string) string) (string, error) {
	if stateDir != "" {
		return filepath.Abs(stateDir)
	}
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if h := getenv(EnvHome); h != "" {
		return filepath.Abs(filepath.Join(h, name))
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "kubectl-chain", "labs", name), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("cannot find a state directory: set HOME, XDG_STATE_HOME or " + EnvHome)
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "kubectl-chain", "labs", name), nil
}

// WithKubeconfig are the labs of the labs' home (where Dir puts a lab
// without --state-dir) that have a kubeconfig, by name: the labs up and
// not taken down (down removes the state directory).
func WithKubeconfig(getenv func(string) string) ([]string, error) {
	one, err := Dir("lab", "", getenv)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Dir(one))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || ValidateName(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(one), e.Name(), "kubeconfig")); err == nil {
			out = append(out, e.Name()) // ReadDir sorts by name
		}
	}
	return out, nil
}
