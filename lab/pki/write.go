package pki

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// Private files (keys, kubeconfigs) are readable by their owner only, as
// kubeadm writes them; certificates are public.
const (
	privateMode = 0o600
	publicMode  = 0o644
)

// CertPEM encodes a certificate.
func CertPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// KeyPEM encodes a private key as PKCS#8.
func KeyPEM(k crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("encoding a private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// PublicKeyPEM encodes the public half of k as PKIX.
func PublicKeyPEM(k crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return nil, fmt.Errorf("encoding a public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// WritePair writes a certificate (0644) and its key (0600).
func WritePair(certPath, keyPath string, c *x509.Certificate, k crypto.Signer) error {
	kp, err := KeyPEM(k)
	if err != nil {
		return err
	}
	if err := writeFile(certPath, CertPEM(c), publicMode); err != nil {
		return err
	}
	return writeFile(keyPath, kp, privateMode)
}

// writeFile creates path's directory (0700) and writes data with exactly mode,
// whatever the umask.
func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}
