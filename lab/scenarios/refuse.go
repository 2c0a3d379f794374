package scenarios

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-chain/kubectl-chain/lab/rollouts"
	"github.com/kubectl-chain/kubectl-chain/lab/traffic"
)

// LabOnlyError is a LabOnly scenario applied on real kubelets.
type LabOnlyError struct{ Scenario Scenario }

func (e *LabOnlyError) Error() string {
	return fmt.Sprintf("scenario %q reproduces only on the simulated kubelet of the default engine: %s; on this lab choose a scenario `kubectl chain lab scenarios` lists for kind, or start a lab without --engine kind",
		e.Scenario.Name, e.Scenario.LabOnly)
}

// NoTrafficControllerError is a Traffic scenario applied on a lab whose
// traffic controller does not run.
type NoTrafficControllerError struct{ Scenario Scenario }

func (e *NoTrafficControllerError) Error() string {
	return fmt.Sprintf("scenario %q needs the lab's traffic controller, which has not accepted GatewayClass %s on this lab: start the lab with `up --traffic-controller PATH` (build %s %s)",
		e.Scenario.Name, traffic.Class, traffic.Program, traffic.BuildHint)
}

// NoRolloutsControllerError is a Rollouts scenario applied on a lab that
// does not serve Argo Rollouts' kinds.
type NoRolloutsControllerError struct{ Scenario Scenario }

func (e *NoRolloutsControllerError) Error() string {
	return fmt.Sprintf("scenario %q needs Argo Rollouts' controller, and this lab does not serve its kinds: start the lab with `up --rollouts-controller PATH` (build %s %s)",
		e.Scenario.Name, rollouts.Program, rollouts.BuildHint)
}

// refuse says why the scenario cannot be applied on this lab, nil when it
// can: before anything is created.
func refuse(ctx context.Context, c kubernetes.Interface, s Scenario, o Options) error {
	if o.RealKubelet && s.LabOnly != "" {
		return &LabOnlyError{Scenario: s}
	}
	if s.Traffic {
		if ok, err := traffic.Accepted(ctx, c); err != nil || !ok {
			return &NoTrafficControllerError{Scenario: s}
		}
	}
	if s.Rollouts {
		if err := c.Discovery().RESTClient().Get().AbsPath(customPath(RolloutKind, "default")...).Do(ctx).Error(); err != nil {
			return &NoRolloutsControllerError{Scenario: s}
		}
	}
	return nil
}
