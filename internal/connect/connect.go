// Package connect is kubectl's connection flags as every front of the
// engine uses them: the kubeconfig checked (a running lab when there is
// none), its context's namespace, and the clientset and discovery mapper
// built from them. The engine itself takes only the factories, so it needs
// no command-line package.
package connect

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/internal/engine"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
	"github.com/kubectl-chain/kubectl-chain/internal/labhome"
)

// Kubeconfig checks the kubeconfig kubectl's flags name and returns the
// namespace from -n or the current context. With no kubeconfig at all, a
// running lab is used, and notes says so.
func Kubeconfig(flags *genericclioptions.ConfigFlags, notes io.Writer) (string, error) {
	if err := checkKubeconfig(flags, notes); err != nil {
		return "", err
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", engine.Translate(err)
	}
	return ns, nil
}

// checkKubeconfig catches the two kubeconfig mistakes client-go reports
// confusingly: none at all (it would dial localhost:8080) and a --context
// that does not exist.
func checkKubeconfig(flags *genericclioptions.ConfigFlags, notes io.Writer) error {
	if err := defaultToLab(flags, notes); err != nil {
		return err
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return engine.Translate(err)
	}
	if c := flags.Context; c != nil && strings.Contains(*c, ",") {
		return engine.UsageErrorf("--context %s names several contexts: this command reads one (judging does several at once: kubectl chain TARGET --context %s)", *c, *c)
	}
	if c := flags.Context; c != nil && *c != "" {
		if _, ok := raw.Contexts[*c]; !ok {
			var names []string
			for n := range raw.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			return &engine.ExitError{Code: engine.ExitCluster, Err: fmt.Errorf("context %q is not in the kubeconfig (it has: %s)", *c, strings.Join(names, ", "))}
		}
	}
	return nil
}

// defaultToLab makes the local lab the cluster of a user who has none: with
// no kubeconfig, no --server and not in a pod, a running `kubectl chain lab`
// is used (and said so on stderr); with no lab either, the error says how to
// start one. It runs before ConfigFlags loads anything, since ConfigFlags
// caches what it loaded first.
func defaultToLab(flags *genericclioptions.ConfigFlags, notes io.Writer) error {
	if flags.APIServer != nil && *flags.APIServer != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if flags.KubeConfig != nil {
		rules.ExplicitPath = *flags.KubeConfig
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
		return &engine.ExitError{Code: engine.ExitCluster, Err: fmt.Errorf(
			"no kubeconfig, and several labs are up (%s): choose one with --kubeconfig \"$(kubectl chain lab kubeconfig --name %s)\"",
			strings.Join(labs, ", "), labs[0])}
	}
	if name != "" {
		if dir, err := labhome.Dir(name, "", os.Getenv); err == nil {
			path := filepath.Join(dir, "kubeconfig")
			flags.KubeConfig = &path
			fmt.Fprintf(notes, "no kubeconfig: using the local lab %q (%s)\n", name, path)
			return nil
		}
	}
	return &engine.ExitError{Code: engine.ExitCluster, Err: errors.New(
		"no cluster configured: set KUBECONFIG or pass --kubeconfig; for a local cluster run: kubectl chain lab up")}
}

// defaultLab is the name `kubectl chain lab up` gives a lab by default.
const defaultLab = "lab"

// Client builds the clientset from kubectl's flags, as userAgent.
func Client(flags *genericclioptions.ConfigFlags, userAgent string) func() (kube.Client, error) {
	return func() (kube.Client, error) {
		cfg, err := flags.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		cfg.UserAgent = userAgent
		// kubectl's own discovery limits: a read of a busy scope sends
		// its field-selected event reads (up to 100) in parallel.
		if cfg.QPS == 0 {
			cfg.QPS, cfg.Burst = 50, 300
		}
		return kube.NewClient(cfg)
	}
}

// Mapper resolves resource types through discovery, with kubectl's
// on-disk cache.
func Mapper(flags *genericclioptions.ConfigFlags) func() (meta.RESTMapper, error) {
	return func() (meta.RESTMapper, error) { return flags.ToRESTMapper() }
}

// Contexts are the kubeconfig contexts a fleet run judges: those --context
// names when it names several ("a,b,c"), or every one with all
// (--all-contexts), in the kubeconfig's order of names. Nil when one
// context (or the current one) is judged. A name the kubeconfig lacks is
// a cluster error that lists the ones it has.
func Contexts(flags *genericclioptions.ConfigFlags, all bool, notes io.Writer) ([]string, error) {
	named := ""
	if flags.Context != nil {
		named = *flags.Context
	}
	if !all && !strings.Contains(named, ",") {
		return nil, nil
	}
	if all && named != "" {
		return nil, engine.UsageErrorf("--all-contexts judges every context: leave out --context %s", named)
	}
	if err := defaultToLab(flags, notes); err != nil {
		return nil, err
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, engine.Translate(err)
	}
	var have []string
	for n := range raw.Contexts {
		have = append(have, n)
	}
	sort.Strings(have)
	if all {
		if len(have) == 0 {
			return nil, &engine.ExitError{Code: engine.ExitCluster, Err: errors.New("--all-contexts: the kubeconfig has no contexts")}
		}
		return have, nil
	}
	var out []string
	for _, n := range strings.Split(named, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, engine.UsageErrorf("--context %q names an empty context: give names separated by commas (--context a,b)", named)
		case slices.Contains(out, n):
			continue
		case !slices.Contains(have, n):
			return nil, &engine.ExitError{Code: engine.ExitCluster, Err: fmt.Errorf("context %q is not in the kubeconfig (it has: %s)", n, strings.Join(have, ", "))}
		}
		out = append(out, n)
	}
	return out, nil
}

// ForContext are kubectl's flags as given, for context name instead.
func ForContext(flags *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.CacheDir, f.KubeConfig, f.ClusterName, f.AuthInfoName = flags.CacheDir, flags.KubeConfig, flags.ClusterName, flags.AuthInfoName
	f.Namespace, f.APIServer, f.TLSServerName, f.Insecure = flags.Namespace, flags.APIServer, flags.TLSServerName, flags.Insecure
	f.CertFile, f.KeyFile, f.CAFile, f.BearerToken = flags.CertFile, flags.KeyFile, flags.CAFile, flags.BearerToken
	f.Impersonate, f.ImpersonateUID, f.ImpersonateGroup, f.ImpersonateUserExtra = flags.Impersonate, flags.ImpersonateUID, flags.ImpersonateGroup, flags.ImpersonateUserExtra
	f.Username, f.Password, f.Timeout, f.DisableCompression, f.ProxyURL = flags.Username, flags.Password, flags.Timeout, flags.DisableCompression, flags.ProxyURL
	f.Context = &name
	return f
}
