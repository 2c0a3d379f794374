package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/internal/labhome"
)

// useKubeconfig checks the kubeconfig and takes the namespace from -n or
// the current context.
func (o *Options) useKubeconfig() error {
	if err := o.checkKubeconfig(); err != nil {
		return err
	}
	ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return translate(err)
	}
	o.namespace = ns
	return nil
}

// checkKubeconfig catches the two kubeconfig mistakes client-go reports
// confusingly: none at all (it would dial localhost:8080) and a --context
// that does not exist.
func (o *Options) checkKubeconfig() error {
	if err := o.defaultToLab(); err != nil {
		return err
	}
	raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return translate(err)
	}
	if c := o.ConfigFlags.Context; c != nil && *c != "" {
		if _, ok := raw.Contexts[*c]; !ok {
			var names []string
			for n := range raw.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			return &ExitError{Code: ExitCluster, Err: fmt.Errorf("context %q is not in the kubeconfig (it has: %s)", *c, strings.Join(names, ", "))}
		}
	}
	return nil
}

// defaultToLab makes the local lab the cluster of a user who has none: with
// no kubeconfig, no --server and not in a pod, a running `kubectl chain lab`
// is used (and said so on stderr); with no lab either, the error says how to
// start one. It runs before ConfigFlags loads anything, since ConfigFlags
// caches what it loaded first.
func (o *Options) defaultToLab() error {
	if o.ConfigFlags.APIServer != nil && *o.ConfigFlags.APIServer != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.ConfigFlags.KubeConfig != nil {
		rules.ExplicitPath = *o.ConfigFlags.KubeConfig
	}
	cfg, err := rules.Load()
	if err != nil || len(cfg.Contexts) > 0 {
		return nil // a broken kubeconfig is reported by the loader itself
	}
	// The default lab, else the one lab up whatever its name (lab up
	// --name); several are for the user to choose from.
	labs, _ := labhome.WithKubeconfig(os.Getenv)
	name := ""
	switch {
	case slices.Contains(labs, defaultLab):
		name = defaultLab
	case len(labs) == 1:
		name = labs[0]
	case len(labs) > 1:
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf(
			"no kubeconfig, and several labs are up (%s): choose one with --kubeconfig \"$(kubectl chain lab kubeconfig --name %s)\"",
			strings.Join(labs, ", "), labs[0])}
	}
	if name != "" {
		if dir, err := labhome.Dir(name, "", os.Getenv); err == nil {
			path := filepath.Join(dir, "kubeconfig")
			o.ConfigFlags.KubeConfig = &path
			fmt.Fprintf(o.ErrOut, "no kubeconfig: using the local lab %q (%s)\n", name, path)
			return nil
		}
	}
	return &ExitError{Code: ExitCluster, Err: errors.New(
		"no cluster configured: set KUBECONFIG or pass --kubeconfig; for a local cluster run: kubectl chain lab up")}
}

// defaultLab is the name `kubectl chain lab up` gives a lab by default.
const defaultLab = "lab"
