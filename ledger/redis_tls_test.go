package ledger

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// writeTestPKI writes a CA and a server certificate for 127.0.0.1 signed by
// it, as PEM files in dir.
func writeTestPKI(t *testing.T, dir string) redistest.TLSFiles {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ndrmilter test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "redis.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"redis.test"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	f := redistest.TLSFiles{
		Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server.key"), CA: filepath.Join(dir, "ca.pem"),
	}
	for path, block := range map[string]*pem.Block{
		f.Cert: {Type: "CERTIFICATE", Bytes: der},
		f.Key:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
		f.CA:   {Type: "CERTIFICATE", Bytes: caDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestRedisTLS talks rediss:// to a redis-server that speaks only TLS, with
// the server's certificate checked against tls_ca; without the CA, or
// without TLS, calls fail.
func TestRedisTLS(t *testing.T) {
	files := writeTestPKI(t, t.TempDir())
	srv := redistest.StartTLS(t, files)
	ctx := context.Background()

	l := openTestRedis(t, srv.URL()+"?tls_ca="+files.CA, functional)
	checkPutLookup(t, l, 5)

	// The right CA but another name: the certificate does not match.
	wrongName := openTestRedis(t, srv.URL()+"?tls_ca="+files.CA+"&tls_server_name=other.test", functional)
	if _, err := wrongName.ByMessageID(ctx, "x@example.org"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("certificate for another name accepted: %v", err)
	}
	// The system roots do not know the test CA.
	noCA := openTestRedis(t, srv.URL(), Options{LookupTimeout: 2 * time.Second})
	if _, err := noCA.ByMessageID(ctx, "x@example.org"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("server certificate accepted without its CA: %v", err)
	}
	// Plain redis:// to a TLS port fails (within its deadline) instead of hanging.
	plain := openTestRedis(t, strings.Replace(srv.URL(), "rediss://", "redis://", 1), Options{LookupTimeout: 50 * time.Millisecond})
	start := time.Now()
	if _, err := plain.ByMessageID(ctx, "x@example.org"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("plain connection to a TLS port: %v", err)
	}
	if d := time.Since(start); d > 50*time.Millisecond+callSlack {
		t.Fatalf("plain connection to a TLS port failed after %v, deadline 50ms", d)
	}
}

// TestRedisSilentServer points the ledger at a server that accepts TCP
// connections and never answers (a hung host, a firewall that swallows
// packets after the handshake): each call must give up at its deadline,
// over plain TCP and while waiting for the TLS handshake.
func TestRedisSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	})
	o := Options{LookupTimeout: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	const slack = callSlack
	for _, scheme := range []string{"redis", "rediss"} {
		l := openTestRedis(t, scheme+"://"+ln.Addr().String(), o)
		ctx := context.Background()
		var lookups []time.Duration
		for i := range 3 {
			start := time.Now()
			_, err := l.ByMessageID(ctx, "x@example.org")
			d := time.Since(start)
			lookups = append(lookups, d)
			if err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("%s lookup %d on a silent server: err = %v, want a timeout", scheme, i, err)
			}
			if d > o.LookupTimeout+slack {
				t.Fatalf("%s lookup %d on a silent server took %v, deadline %v", scheme, i, d, o.LookupTimeout)
			}
			start = time.Now()
			err = l.Put(ctx, Record{MessageID: "x@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}})
			if d := time.Since(start); err == nil || d > o.WriteTimeout+slack {
				t.Fatalf("%s Put %d on a silent server: %v after %v", scheme, i, err, d)
			}
		}
		checkMedian(t, scheme+" lookups on a silent server", lookups, o.LookupTimeout)
	}
}
