package engine

import "github.com/kubectl-chain/kubectl-chain/internal/health"

// LoadHealth loads the user's own health checks (their argocd-cm ConfigMap,
// or a folder of GROUP/KIND/health.lua) over Argo CD's catalogue.
func LoadHealth(path string) (*health.Catalogue, error) {
	user, err := health.Load(path)
	if err != nil {
		return nil, UsageErrorf("--health-checks: %v", err)
	}
	return user.Over(health.Builtin()), nil
}
