package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"time"
)

// Request describes one certificate: who it names and what it may be used for.
type Request struct {
	CommonName   string
	Organization []string
	DNSNames     []string
	IPs          []net.IP
	Server       bool
	Client       bool
}

// Issue signs a new key for r with ca.
func (ca *CA) Issue(r Request, now time.Time) (*x509.Certificate, crypto.Signer, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	var usages []x509.ExtKeyUsage
	if r.Server {
		usages = append(usages, x509.ExtKeyUsageServerAuth)
	}
	if r.Client {
		usages = append(usages, x509.ExtKeyUsageClientAuth)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: r.CommonName, Organization: r.Organization},
		DNSNames:     r.DNSNames,
		IPAddresses:  r.IPs,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  usages,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("signing the certificate of %s: %w", r.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}
