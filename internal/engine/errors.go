package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/chain"
	"github.com/kubectl-chain/kubectl-chain/internal/kube"
)

// Exit codes. They are part of the CI contract: never renumber one.
const (
	ExitHealthy     = 0 // the rollout is complete and every pod is ready
	ExitBroken      = 1 // a link is broken
	ExitProgressing = 2 // nothing is broken, but the rollout is not done
	ExitUnknown     = 3 // a link could not be judged (evidence forbidden) and nothing is broken
	ExitUsage       = 4 // the command line is wrong: flag, argument, resource type
	ExitNotFound    = 5 // the Deployment does not exist in that namespace
	ExitCluster     = 6 // the cluster could not be read: kubeconfig, connection, timeout, credentials, RBAC on the Deployment
	ExitUnexplained = 7 // explain: no cause is known for the message (or for any of the events)
)

// ExitError carries the exit code chosen for an error up to main.
type ExitError struct {
	Code int
	Err  error
	// Silent errors were already reported (by a child process, or by the
	// output itself).
	Silent bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// VerdictError reports a walk that ended in anything but healthy; its message
// was already printed with the report.
type VerdictError struct{ Health chain.Health }

func (e *VerdictError) Error() string { return "deployment is " + string(e.Health) }

// UsageErrorf is an error of the request itself (a flag, an argument, a
// resource type), with the usage exit code.
func UsageErrorf(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// Translate turns an error from reading the cluster into one line a user can
// act on, with its exit code, in kubectl's wording where kubectl has one
// (k8s.io/kubectl/pkg/cmd/util.StandardErrorMessage). It runs once, at the
// top of a run; everything below wraps errors with context and leaves
// wording here.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return err
	}
	var ns *kube.NotServedError
	if errors.As(err, &ns) {
		// A type the cluster does not serve is a usage error, as an
		// unknown KIND/NAME's is after discovery: one code everywhere.
		return &ExitError{Code: ExitUsage, Err: ns}
	}
	var nf *kube.NotFoundError
	if errors.As(err, &nf) {
		resource := chain.Kind(nf.What()).Plural()
		return &ExitError{Code: ExitNotFound, Err: fmt.Errorf(
			"%s %q not found in namespace %q: pass -n NAMESPACE if it lives elsewhere (kubectl get %s -A --field-selector metadata.name=%s)",
			nf.What(), nf.Name, nf.Namespace, resource, nf.Name)}
	}
	var oe *kube.OwnerError
	if errors.As(err, &oe) {
		return &ExitError{Code: ExitNotFound, Err: fmt.Errorf("%s, so it has no workload to walk: kubectl chain walks Deployments, StatefulSets, DaemonSets, Jobs and CronJobs, and pods no controller owns; see the %s itself with kubectl describe %s %s -n %s",
			oe, oe.Kind, oe.Kind, oe.Name, oe.Namespace)}
	}
	var fb *kube.ForbiddenError
	if errors.As(err, &fb) {
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("%s\ncheck the permission with: %s", fb.Message, fb.Check)}
	}
	if clientcmd.IsEmptyConfig(err) {
		return &ExitError{Code: ExitCluster, Err: errors.New(
			"no cluster configured: set KUBECONFIG or pass --kubeconfig; for a local cluster run: kubectl chain lab up")}
	}
	if clientcmd.IsConfigurationInvalid(err) || isKubeconfigError(err) {
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("error in configuration: %s", oneLine(err.Error()))}
	}
	if apierrors.IsUnauthorized(err) {
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("you must be logged in to the server (%s): refresh your credentials for this context", statusMessage(err))}
	}
	if errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || isNetTimeout(err) {
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("unable to connect to the server: timed out: %s (raise --request-timeout if the API server is slow)", oneLine(err.Error()))}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if strings.Contains(ue.Err.Error(), "connection refused") {
			host := ue.URL
			if u, perr := url.Parse(ue.URL); perr == nil {
				host = u.Host
			}
			return &ExitError{Code: ExitCluster, Err: fmt.Errorf("the connection to the server %s was refused - did you specify the right host or port?", host)}
		}
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("unable to connect to the server: %v", ue.Err)}
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return &ExitError{Code: ExitCluster, Err: fmt.Errorf("error from server (%s): %s", status.Status().Reason, oneLine(err.Error()))}
	}
	return &ExitError{Code: ExitCluster, Err: err}
}

func isKubeconfigError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "kubeconfig") || strings.Contains(s, "context was not found") ||
		strings.Contains(s, "cluster has no server defined") || strings.Contains(s, "error loading config file")
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ExitCode maps what a run returned to the process exit code: a verdict's
// by its health, an *ExitError's its own, anything else a usage error.
func ExitCode(err error) int {
	if err == nil {
		return ExitHealthy
	}
	var v *VerdictError
	if errors.As(err, &v) {
		return HealthCode(v.Health)
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitUsage
}

// HealthCode is the exit code of a verdict's health.
func HealthCode(h chain.Health) int {
	switch h {
	case chain.Healthy:
		return ExitHealthy
	case chain.Broken:
		return ExitBroken
	case chain.Progressing:
		return ExitProgressing
	}
	return ExitUnknown
}
