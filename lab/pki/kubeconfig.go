package pki

import (
	"crypto"
	"crypto/x509"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig is a kubeconfig with one cluster, user and context, all called
// name, with the certificates embedded so the file works when copied alone.
func Kubeconfig(name, server string, ca, cert *x509.Certificate, key crypto.Signer) ([]byte, error) {
	kp, err := KeyPEM(key)
	if err != nil {
		return nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: CertPEM(ca)}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: CertPEM(cert), ClientKeyData: kp}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	return clientcmd.Write(*cfg)
}

// WriteKubeconfig writes a kubeconfig with mode 0600: it holds a private key.
func WriteKubeconfig(path string, data []byte) error {
	return writeFile(path, data, privateMode)
}
