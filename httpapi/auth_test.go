package httpapi_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// usersFile writes a password file of user:password pairs.
func usersFile(t *testing.T, pairs ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# users of the helpdesk\n\n")
	for i := 0; i+1 < len(pairs); i += 2 {
		h, err := bcrypt.GenerateFromPassword([]byte(pairs[i+1]), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(pairs[i] + ":" + string(h) + "\n")
	}
	path := filepath.Join(t.TempDir(), "users")
	os.WriteFile(path, []byte(b.String()), 0o600)
	return path
}

func TestBasicAuthenticationGuardsAllButHealthz(t *testing.T) {
	users, err := httpapi.LoadUsers(usersFile(t, "helpdesk", "correct horse", "admin", "battery staple"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, httpapi.Config{Users: users, Token: "local-token"})
	for _, path := range []string{"/", "/api/v1/code?q=550", "/api/v1/ledger/stats", "/static/page.css"} {
		resp, _ := do(t, http.MethodGet, ts.URL+path, "", nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Basic realm="ndrmilter"`) {
			t.Errorf("%s without credentials: %s, WWW-Authenticate %q; want 401 and a Basic challenge", path, resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	}
	get := func(path string, set func(*http.Request)) int {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		name string
		set  func(*http.Request)
		want int
	}{
		{"right password", func(r *http.Request) { r.SetBasicAuth("helpdesk", "correct horse") }, http.StatusOK},
		{"right password, again (remembered)", func(r *http.Request) { r.SetBasicAuth("helpdesk", "correct horse") }, http.StatusOK},
		{"the other user", func(r *http.Request) { r.SetBasicAuth("admin", "battery staple") }, http.StatusOK},
		{"wrong password", func(r *http.Request) { r.SetBasicAuth("helpdesk", "battery staple") }, http.StatusUnauthorized},
		{"unknown user", func(r *http.Request) { r.SetBasicAuth("mallory", "correct horse") }, http.StatusUnauthorized},
		{"the service's token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer local-token") }, http.StatusOK},
		{"a wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer local-tokeN") }, http.StatusUnauthorized},
	} {
		if got := get("/api/v1/code?q=550", c.set); got != c.want {
			t.Errorf("%s: %d; want %d", c.name, got, c.want)
		}
	}
	if resp, _ := do(t, http.MethodGet, ts.URL+"/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz needs no credentials: %s", resp.Status)
	}
}

func TestLoadUsersSaysWhatIsWrongWhere(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, says string }{
		{"helpdesk:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n", "users:1: the hash of \"helpdesk\" is not a bcrypt hash"},
		{"# only a comment\n", "no user in the file"},
		{"no colon here\n", "users:1: expected USER:HASH"},
	} {
		path := filepath.Join(dir, "users")
		os.WriteFile(path, []byte(c.content), 0o600)
		if _, err := httpapi.LoadUsers(path); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v; want %q", c.content, err, c.says)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ndrmilter.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// The service's command line reaches it over TLS through the address
// file, which pins the certificate; another certificate is refused.
func TestTLSListenerAndTheClientOfTheAddressFile(t *testing.T) {
	cert, key := selfSigned(t)
	ln, err := httpapi.Listen("127.0.0.1:0", cert, key)
	if err != nil {
		t.Fatal(err)
	}
	if !ln.TLS || ln.CertSHA256 == "" || !strings.HasPrefix(ln.URL(), "https://127.0.0.1:") || !ln.Loopback() {
		t.Fatalf("listener: TLS %v, pin %q, URL %q", ln.TLS, ln.CertSHA256, ln.URL())
	}
	ts := newTestServer(t, httpapi.Config{})
	put(t, ts.Ledger, "tls.1@example.org", "")
	hs := httpapi.Serve(ln, ts.Handler())
	defer hs.Close()

	dir := t.TempDir()
	a := httpapi.AddrFile{URL: ln.URL(), PID: os.Getpid(), CertSHA256: ln.CertSHA256}
	if err := httpapi.WriteAddrFile(dir, a); err != nil {
		t.Fatal(err)
	}
	got, err := httpapi.ReadAddrFile(dir)
	if err != nil || got != a {
		t.Fatalf("address file read back: %+v, %v; want %+v", got, err, a)
	}
	if !got.Alive() {
		t.Errorf("this process is not alive, says the address file")
	}
	c := httpapi.NewClient(got)
	rec, err := c.Lookup(t.Context(), "<tls.1@example.org>")
	if err != nil || rec.MessageID != "tls.1@example.org" {
		t.Errorf("lookup over TLS: %+v, %v", rec, err)
	}
	if _, err := c.Lookup(t.Context(), "nope@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("lookup of an unknown id: %v; want ledger.ErrNotFound", err)
	}
	if st, err := c.Stats(t.Context()); err != nil || st.Records != 1 {
		t.Errorf("stats over TLS: %+v, %v", st, err)
	}
	bad := got
	bad.CertSHA256 = strings.Repeat("0", 64)
	if _, err := httpapi.NewClient(bad).Stats(t.Context()); err == nil || !strings.Contains(err.Error(), "not the one its address file names") {
		t.Errorf("a certificate other than the pinned one: %v", err)
	}
	// Removed only while it is still this service's file.
	other := a
	other.PID++
	httpapi.RemoveAddrFile(dir, other)
	if _, err := httpapi.ReadAddrFile(dir); err != nil {
		t.Errorf("another service's stop removed the address file: %v", err)
	}
	httpapi.RemoveAddrFile(dir, a)
	if _, err := httpapi.ReadAddrFile(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the address file is left after its service stopped: %v", err)
	}
	if (httpapi.AddrFile{PID: 1 << 30}).Alive() {
		t.Errorf("a process that does not exist is alive")
	}
}

func TestClientSaysWhenTheServiceWantsCredentials(t *testing.T) {
	users, _ := httpapi.LoadUsers(usersFile(t, "helpdesk", "pw"))
	ts := newTestServer(t, httpapi.Config{Users: users, Token: "t0k3n"})
	if _, err := httpapi.NewClient(httpapi.AddrFile{URL: ts.URL}).Stats(t.Context()); !errors.Is(err, httpapi.ErrUnauthorized) {
		t.Errorf("without the token: %v; want ErrUnauthorized", err)
	}
	sum, err := httpapi.NewClient(httpapi.AddrFile{URL: ts.URL, Token: "t0k3n"}).Import(t.Context(),
		strings.NewReader(postfixLog("cli.1@example.org", "1CCC2D3E4F")), []string{"example.org"}, false)
	if err != nil || sum.New != 1 {
		t.Errorf("import with the token: %+v, %v", sum, err)
	}
}
