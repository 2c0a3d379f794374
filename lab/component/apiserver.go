package component

import (
	"context"
	"os"
	"path/filepath"
	"strconv"

	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"

	"github.com/kubectl-chain/kubectl-chain/lab/pki"
	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// ServiceCIDR is the lab's Service IP range (kind's and kubeadm's default).
const ServiceCIDR = "10.96.0.0/16"

// ServiceAccountIssuer is the issuer written into service-account tokens.
const ServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// apiServerArgs configures upstream's kube-apiserver as a kubeadm cluster
// would be, on loopback: TLS everywhere, client certificates, Node and RBAC
// authorization, no anonymous requests, NodeRestriction admission on top of
// the default admission plugins.
//
// --endpoint-reconciler-type=none: the default reconciler would publish the
// advertise address 127.0.0.1 as the endpoint of Service "kubernetes", and the
// API server refuses loopback endpoint addresses; nothing in the lab dials
// that Service, so it stays without endpoints.
func apiServerArgs(l state.Layout, s state.Spec) []string {
	return []string{
		"--advertise-address=" + state.Host,
		"--bind-address=" + state.Host,
		"--secure-port=" + strconv.Itoa(s.Ports.APIServer),
		"--tls-cert-file=" + l.Cert("apiserver"),
		"--tls-private-key-file=" + l.Key("apiserver"),
		"--client-ca-file=" + l.Cert("ca"),
		"--etcd-servers=" + s.EtcdClientURL(),
		"--etcd-cafile=" + l.Cert("ca"),
		"--etcd-certfile=" + l.Cert("apiserver-etcd-client"),
		"--etcd-keyfile=" + l.Key("apiserver-etcd-client"),
		"--service-account-issuer=" + ServiceAccountIssuer,
		"--service-account-key-file=" + l.ServiceAccountPublicKey(),
		"--service-account-signing-key-file=" + l.Key("sa"),
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--authorization-mode=Node,RBAC",
		"--anonymous-auth=false",
		"--enable-admission-plugins=NodeRestriction",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
		"--requestheader-client-ca-file=" + l.Cert("front-proxy-ca"),
		"--requestheader-allowed-names=" + pki.FrontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + l.Cert(pki.FrontProxyClientName),
		"--proxy-client-key-file=" + l.Key(pki.FrontProxyClientName),
		"--cert-dir=" + l.PKI(),
		"--profiling=false",
		"--audit-policy-file=" + auditPolicyPath(l),
		"--audit-log-path=" + l.Log(state.Audit),
		"--audit-log-format=json",
		"--audit-log-maxsize=100",
		"--audit-log-maxbackup=1",
	}
}

// auditPolicyPath is where up writes the API server's audit policy.
func auditPolicyPath(l state.Layout) string { return filepath.Join(l.Dir, "audit-policy.yaml") }

// auditPolicy records, at Metadata level (who, what verb on what object,
// the user agent; no bodies), what people and their tools ask of the lab:
// kubectl, kubectl chain. The components' own traffic (nodes, the
// controllers' service accounts, the scheduler, health checks) is left
// out, so the log stays small and says what a command read; a
// ServiceAccount of another namespace (a CI identity) is recorded.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  userGroups: ["system:nodes", "system:serviceaccounts:kube-system"]
- level: None
  users: ["system:kube-scheduler", "system:kube-controller-manager", "system:apiserver", "system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/version", "/openapi*", "/api", "/apis*"]
- level: Metadata
`

// runAPIServer runs upstream's unmodified kube-apiserver command. It installs
// its own signal handler, so ctx only matters before it starts.
func runAPIServer(ctx context.Context, l state.Layout, s state.Spec) error {
	if err := os.WriteFile(auditPolicyPath(l), []byte(auditPolicy), 0o600); err != nil {
		return err
	}
	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(apiServerArgs(l, s))
	return cmd.Execute()
}
