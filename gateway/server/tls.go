package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"time"

	"github.com/restgate/gateway/gateway/config"
)

// TLSConfig returns the API listener's TLS configuration for mode auto or
// files (nil for off), and for auto the SHA-256 fingerprint of the generated
// certificate, which the caller logs. TLS 1.2 is the minimum, with AEAD
// suites only.
func TLSConfig(c config.TLS, now time.Time) (*tls.Config, string, error) {
	var cert tls.Certificate
	var fingerprint string
	switch c.Mode {
	case config.TLSOff:
		return nil, "", nil
	case config.TLSFiles:
		var err error
		if cert, err = tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
			return nil, "", fmt.Errorf("server.tls: loading %s and %s: %w", c.CertFile, c.KeyFile, err)
		}
	case config.TLSAuto:
		var err error
		if cert, fingerprint, err = selfSigned(now); err != nil {
			return nil, "", fmt.Errorf("server.tls: generating a self-signed certificate: %w", err)
		}
	default:
		return nil, "", fmt.Errorf("server.tls.mode: unknown mode %q", c.Mode)
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
		NextProtos: []string{"h2", "http/1.1"},
	}, fingerprint, nil
}

// selfSigned makes an ECDSA P-256 certificate for localhost and the loopback
// addresses, valid for a year, kept only in memory.
func selfSigned(now time.Time) (tls.Certificate, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "gateway self-signed"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	sum := sha256.Sum256(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, hex.EncodeToString(sum[:]), nil
}
