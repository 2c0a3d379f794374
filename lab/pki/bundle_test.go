package pki

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-chain/kubectl-chain/lab/state"
)

func TestGenerate(t *testing.T) {
	l := state.Layout{Dir: t.TempDir()}
	s := state.Spec{Name: "lab", Nodes: state.NodeShape{Count: 2}, Ports: state.Ports{APIServer: 6443}}
	now := time.Now()
	if err := Generate(l, s, now); err != nil {
		t.Fatal(err)
	}

	// Every key and kubeconfig is private to its owner.
	var private []string
	_ = filepath.Walk(l.Dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Mode().Perm() == 0o600 {
			rel, _ := filepath.Rel(l.Dir, path)
			private = append(private, rel)
		}
		return nil
	})
	sort.Strings(private)
	want := []string{
		"kubeconfig", "kubeconfigs/kube-controller-manager.conf", "kubeconfigs/kube-scheduler.conf", "kubeconfigs/lab-operator.conf", "kubeconfigs/storage-provisioner.conf",
		"pki/admin.key", "pki/admission-webhook.key", "pki/apiserver-etcd-client.key", "pki/apiserver.key", "pki/ca.key",
		"pki/etcd-server.key", "pki/front-proxy-ca.key", "pki/front-proxy-client.key",
		"pki/kube-controller-manager.key", "pki/kube-scheduler.key", "pki/lab-operator.key",
		"pki/node-lab-node-1.key", "pki/node-lab-node-2.key", "pki/sa.key", "pki/storage-provisioner.key",
	}
	if diff := cmp.Diff(want, private); diff != "" {
		t.Errorf("files with mode 0600 (-want +got):\n%s", diff)
	}

	// The serving certificate is valid for the loopback names clients use,
	// and node certificates carry the Node authorizer's identity.
	ca := readCert(t, l.Cert("ca"))
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	serving := readCert(t, l.Cert("apiserver"))
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := serving.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("serving certificate for %s: %v", host, err)
		}
	}
	node := readCert(t, l.Cert(state.NodeIdentity("lab-node-2")))
	if _, err := node.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("node certificate: %v", err)
	}
	if diff := cmp.Diff([]string{"system:node:lab-node-2", "system:nodes"}, []string{node.Subject.CommonName, node.Subject.Organization[0]}); diff != "" {
		t.Errorf("node identity (-want +got):\n%s", diff)
	}

	cfg, err := clientcmd.LoadFromFile(l.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].Server; got != "https://127.0.0.1:6443" {
		t.Errorf("admin kubeconfig server = %q", got)
	}
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
