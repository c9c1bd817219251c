package httpapi

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Listener is the HTTP listener, plain or TLS.
type Listener struct {
	net.Listener
	// TLS is set when the listener speaks TLS; CertSHA256 is then the
	// SHA-256 of its certificate (DER), which the address file pins.
	TLS        bool
	CertSHA256 string
}

// Listen opens addr (HOST:PORT), with TLS when certFile and keyFile (PEM)
// are given. It is opened before anything is served, so that a port in use
// is a start-up error.
func Listen(addr, certFile, keyFile string) (*Listener, error) {
	var conf *tls.Config
	var pin string
	if certFile != "" || keyFile != "" {
		if certFile == "" || keyFile == "" {
			return nil, fmt.Errorf("TLS needs both a certificate (http_tls_cert) and a key (http_tls_key)")
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot load the HTTP listener's certificate: %w", err)
		}
		sum := sha256.Sum256(cert.Certificate[0])
		pin = hex.EncodeToString(sum[:])
		conf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot open the HTTP listener on %s: %w", addr, err)
	}
	l := &Listener{Listener: ln, CertSHA256: pin}
	if conf != nil {
		l.Listener, l.TLS = tls.NewListener(ln, conf), true
	}
	return l, nil
}

// URL is where the listener is reached from this host: an unspecified
// address (0.0.0.0, ::) is reached on loopback.
func (l *Listener) URL() string {
	a := l.Addr().(*net.TCPAddr)
	ip := a.IP
	switch {
	case ip == nil || ip.Equal(net.IPv4zero):
		ip = net.IPv4(127, 0, 0, 1)
	case ip.Equal(net.IPv6unspecified):
		ip = net.IPv6loopback
	}
	scheme := "http"
	if l.TLS {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(ip.String(), fmt.Sprint(a.Port))
}

// Loopback reports whether the listener is on a loopback address only.
func (l *Listener) Loopback() bool {
	return l.Addr().(*net.TCPAddr).IP.IsLoopback()
}

// Serve serves h on l in the background; Close the server to stop.
func Serve(l *Listener, h http.Handler) *http.Server {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	go hs.Serve(l)
	return hs
}
