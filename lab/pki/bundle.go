package pki

import (
	"fmt"
	"net"
	"time"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

// Identity is one certificate of the lab and the file name it is stored under.
type Identity struct {
	File string
	Request
}

// apiServerIP is the first address of the Service range: Service "kubernetes".
var apiServerIP = net.IPv4(10, 96, 0, 1)

// Identities are every certificate of a lab. The control-plane users are the
// ones RBAC's bootstrap policy knows (system:kube-controller-manager,
// system:kube-scheduler); the storage provisioner is a user of its own
// (StorageProvisionerUser) that the lab's RBAC addon grants what an external
// provisioner needs; each virtual node gets its own system:node:NAME in
// system:nodes so the Node authorizer and NodeRestriction admission treat the
// simulated kubelet exactly as a real one.
func Identities(s state.Spec) []Identity {
	loopback := []net.IP{net.ParseIP(state.Host)}
	ids := []Identity{
		{"apiserver", Request{
			CommonName: "kube-apiserver",
			DNSNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
			IPs:        []net.IP{net.ParseIP(state.Host), apiServerIP},
			Server:     true,
		}},
		{"etcd-server", Request{CommonName: "etcd", DNSNames: []string{"localhost"}, IPs: loopback, Server: true, Client: true}},
		{"apiserver-etcd-client", Request{CommonName: "kube-apiserver-etcd-client", Client: true}},
		{"admin", Request{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}, Client: true}},
		{state.ControllerManager, Request{CommonName: "system:kube-controller-manager", Client: true}},
		{state.Scheduler, Request{CommonName: "system:kube-scheduler", Client: true}},
		// The API server calls the lab's webhook at https://127.0.0.1:PORT
		// and checks this certificate against the caBundle (the lab's CA).
		{state.AdmissionWebhook, Request{CommonName: "kubectl-chain-lab-admission-webhook", DNSNames: []string{"localhost"}, IPs: loopback, Server: true}},
		{state.StorageProvisioner, Request{CommonName: StorageProvisionerUser, Client: true}},
		{state.Operator, Request{CommonName: OperatorUser, Client: true}},
	}
	if s.TrafficController != "" {
		ids = append(ids, Identity{state.TrafficController, Request{CommonName: TrafficControllerUser, Client: true}})
	}
	if s.RolloutsController != "" {
		ids = append(ids, Identity{state.RolloutsController, Request{CommonName: RolloutsControllerUser, Client: true}})
	}
	for _, n := range s.NodeNames() {
		ids = append(ids, Identity{state.NodeIdentity(n), Request{
			CommonName: "system:node:" + n, Organization: []string{"system:nodes"}, Client: true,
		}})
	}
	if len(s.RealNodes) > 0 {
		// The registry real nodes pull from, by its image name and on
		// loopback (containerd's hosts.toml sends the name there).
		ids = append(ids, Identity{state.Registry, Request{CommonName: "kubectl-chain-lab-registry", DNSNames: []string{"registry.lab.internal", "localhost"}, IPs: loopback, Server: true}})
	}
	for _, n := range s.RealNodes {
		ids = append(ids, Identity{state.RealKubelet(n.Name), Request{
			CommonName: "system:node:" + n.Name, Organization: []string{"system:nodes"}, Client: true,
		}})
	}
	return ids
}

// Generate writes the lab's PKI and kubeconfigs into l: the CA, every
// identity's certificate and key, the service-account key pair, the admin
// kubeconfig and one kubeconfig per control-plane client.
func Generate(l state.Layout, s state.Spec, now time.Time) error {
	ca, err := NewCA(s.Name, now)
	if err != nil {
		return err
	}
	if err := WritePair(l.Cert("ca"), l.Key("ca"), ca.Cert, ca.Key); err != nil {
		return err
	}
	if err := writeServiceAccountKeys(l); err != nil {
		return err
	}
	if err := writeFrontProxy(l, s, now); err != nil {
		return err
	}
	kubeconfigs := map[string]string{
		"admin":                  l.Kubeconfig(),
		state.ControllerManager:  l.ComponentKubeconfig(state.ControllerManager),
		state.Scheduler:          l.ComponentKubeconfig(state.Scheduler),
		state.StorageProvisioner: l.ComponentKubeconfig(state.StorageProvisioner),
		state.Operator:           l.ComponentKubeconfig(state.Operator),
	}
	if s.TrafficController != "" {
		kubeconfigs[state.TrafficController] = l.ComponentKubeconfig(state.TrafficController)
	}
	if s.RolloutsController != "" {
		kubeconfigs[state.RolloutsController] = l.ComponentKubeconfig(state.RolloutsController)
	}
	for _, n := range s.RealNodes {
		kubeconfigs[state.RealKubelet(n.Name)] = l.ComponentKubeconfig(state.RealKubelet(n.Name))
	}
	for _, id := range Identities(s) {
		cert, key, err := ca.Issue(id.Request, now)
		if err != nil {
			return err
		}
		if err := WritePair(l.Cert(id.File), l.Key(id.File), cert, key); err != nil {
			return err
		}
		path, ok := kubeconfigs[id.File]
		if !ok {
			continue
		}
		kc, err := Kubeconfig(ContextName(s.Name), s.APIServerURL(), ca.Cert, cert, key)
		if err != nil {
			return fmt.Errorf("kubeconfig of %s: %w", id.File, err)
		}
		if err := WriteKubeconfig(path, kc); err != nil {
			return err
		}
	}
	return nil
}

// StorageProvisionerUser is the user name in the storage provisioner's
// client certificate, the subject of its ClusterRoleBinding. Not in the
// "system:" namespace of names, which Kubernetes reserves for itself.
const StorageProvisionerUser = "kubectl-chain-lab:storage-provisioner"

// OperatorUser is the lab operator's user, whom `up` grants its RBAC
// (lab/operator.Install).
const OperatorUser = "kubectl-chain-lab:operator"

// TrafficControllerUser is the user of the lab's traffic controller, whom
// `up` grants what Traefik's documented RBAC grants its providers.
const TrafficControllerUser = "kubectl-chain-lab:traffic-controller"

// RolloutsControllerUser is the user of Argo Rollouts' controller in the
// lab (lab/rollouts.Install grants it its RBAC).
const RolloutsControllerUser = "kubectl-chain-lab:rollouts-controller"

// FrontProxyClientName is the identity the API server proxies to aggregated
// API servers with, and the only name their request-header auth accepts.
const FrontProxyClientName = "front-proxy-client"

// writeFrontProxy writes the separate CA of the aggregation layer and the
// API server's proxy client certificate, as kubeadm does; the
// controller-manager and scheduler read this CA from the
// extension-apiserver-authentication ConfigMap.
func writeFrontProxy(l state.Layout, s state.Spec, now time.Time) error {
	ca, err := NewCA(s.Name+"-front-proxy", now)
	if err != nil {
		return err
	}
	if err := WritePair(l.Cert("front-proxy-ca"), l.Key("front-proxy-ca"), ca.Cert, ca.Key); err != nil {
		return err
	}
	cert, key, err := ca.Issue(Request{CommonName: FrontProxyClientName, Client: true}, now)
	if err != nil {
		return err
	}
	return WritePair(l.Cert(FrontProxyClientName), l.Key(FrontProxyClientName), cert, key)
}

// ContextName is the kubeconfig context of a lab, like kind's "kind-NAME".
func ContextName(lab string) string { return "chain-lab-" + lab }

// writeServiceAccountKeys writes the key the API server signs tokens with and
// the public key it verifies them with.
func writeServiceAccountKeys(l state.Layout) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	priv, err := KeyPEM(key)
	if err != nil {
		return err
	}
	pub, err := PublicKeyPEM(key)
	if err != nil {
		return err
	}
	if err := writeFile(l.Key("sa"), priv, privateMode); err != nil {
		return err
	}
	return writeFile(l.ServiceAccountPublicKey(), pub, publicMode)
}
