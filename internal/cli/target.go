package cli

import (
	"fmt"
	"strings"
)

// deploymentTypes are the spellings of the Deployment resource that kubectl
// itself accepts (short name, singular, plural, with group and version).
// They are matched locally: resolving them through discovery would cost a
// round trip on every run.
var deploymentTypes = map[string]bool{
	"deploy": true, "deployment": true, "deployments": true,
	"deploy.apps": true, "deployment.apps": true, "deployments.apps": true,
	"deployment.v1.apps": true, "deployments.v1.apps": true,
}

// parseTargets turns arguments into Deployment names, the way kubectl reads
// "TYPE/NAME", "TYPE NAME" and, here, a bare "NAME" meaning a Deployment.
func parseTargets(args []string) ([]string, error) {
	switch len(args) {
	case 0:
		return nil, usageErrorf("name a Deployment: kubectl chain deploy/NAME (or deployment NAME, or NAME)")
	case 1:
		return parseOne(args[0])
	}
	if !strings.Contains(args[0], "/") && deploymentTypes[strings.ToLower(args[0])] {
		var names []string
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, usageErrorf("%q: after the type %q give plain names, or use TYPE/NAME for every argument", a, args[0])
			}
			if err := validName(a); err != nil {
				return nil, err
			}
			names = append(names, a)
		}
		return names, nil
	}
	var names []string
	for _, a := range args {
		n, err := parseOne(a)
		if err != nil {
			return nil, err
		}
		names = append(names, n...)
	}
	return names, nil
}

func parseOne(arg string) ([]string, error) {
	typ, name, found := strings.Cut(arg, "/")
	if !found {
		if deploymentTypes[strings.ToLower(arg)] {
			return nil, usageErrorf("%q is a resource type: name the Deployment too, as %s/NAME or %s NAME", arg, arg, arg)
		}
		return []string{arg}, validName(arg)
	}
	if !deploymentTypes[strings.ToLower(typ)] {
		return nil, usageErrorf("unknown resource type %q: kubectl chain walks Deployments; use deploy/NAME, deployment/NAME, deployments.apps/NAME or NAME", typ)
	}
	return []string{name}, validName(name)
}

// validName checks a name the way the API server would, so a typo fails here
// with a clear message instead of as a confusing 404.
func validName(name string) error {
	if name == "" {
		return usageErrorf("empty Deployment name: use deploy/NAME")
	}
	if len(name) > 253 {
		return usageErrorf("Deployment name %q is longer than 253 characters", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (r == '-' || r == '.') && i > 0 && i < len(name)-1
		if !ok {
			return usageErrorf("%q is not a valid Deployment name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", name)
		}
	}
	return nil
}

func usageErrorf(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}
