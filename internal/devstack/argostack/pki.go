package argostack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the files kube-apiserver and kube-controller-manager are started with.
type pki struct {
	caPEM                    []byte
	caCert, srvCert, srvKey  string
	saPub, saKey, tokensFile string
	token                    string
}

// makePKI writes a throwaway CA, a serving cert for 127.0.0.1, a service-account key pair
// and a static token file granting system:masters into dir.
func makePKI(dir string) (*pki, error) {
	p := &pki{
		caCert: filepath.Join(dir, "ca.crt"), srvCert: filepath.Join(dir, "apiserver.crt"), srvKey: filepath.Join(dir, "apiserver.key"),
		saPub: filepath.Join(dir, "sa.pub"), saKey: filepath.Join(dir, "sa.key"), tokensFile: filepath.Join(dir, "tokens.csv"),
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now().Add(-time.Hour) // tolerate small clock skew between processes
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "slipway-test-ca"},
		NotBefore: now, NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA: %w", err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return nil, err
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srv := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now, NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost", "kubernetes.default.svc"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create serving cert: %w", err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srvKeyPEM, err := ecKeyPEM(srvKey)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := ecKeyPEM(saKey)
	if err != nil {
		return nil, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(tok)
	files := map[string][]byte{
		p.caCert:     p.caPEM,
		p.srvCert:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		p.srvKey:     srvKeyPEM,
		p.saKey:      saKeyPEM,
		p.saPub:      pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER}),
		p.tokensFile: fmt.Appendf(nil, "%s,admin,admin,\"system:masters\"\n", p.token),
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func ecKeyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// kubeconfig is what ArgoCD and kube-controller-manager use to reach the apiserver.
func kubeconfig(url string, caPEM []byte, token string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: slipway-test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: slipway-test
  context:
    cluster: slipway-test
    user: admin
    namespace: %s
current-context: slipway-test
`, url, base64.StdEncoding.EncodeToString(caPEM), token, ArgoNamespace)
}
