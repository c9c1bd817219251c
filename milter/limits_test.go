package milter

import (
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
)

// closedAtOnce reports whether a connection to addr is closed by the
// server before it says anything.
func closedAtOnce(t *testing.T, addr string) bool {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = nc.Read(make([]byte, 1))
	ne, timeout := err.(net.Error)
	return err != nil && !(timeout && ne.Timeout())
}

// Beyond max_connections a connection is closed at once and counted; once
// one closes, a new one is served.
func TestConnectionCapRefusesAndCounts(t *testing.T) {
	srv, addr := startServer(t, Config{MaxConnections: 2}, nil)
	a := dial(t, newClient(addr), "203.0.113.1")
	b := dial(t, newClient(addr), "203.0.113.2")
	defer b.close()
	if !closedAtOnce(t, addr) {
		t.Fatal("a third connection with max_connections 2 was not closed")
	}
	if got := counterValue(t, srv.Metrics().ConnectionsRefused.WithLabelValues("max_connections")); got != 1 {
		t.Fatalf(`ndrmilter_connections_refused_total{reason="max_connections"} = %v, want 1`, got)
	}
	a.close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.Sessions() > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	c := dial(t, newClient(addr), "203.0.113.3")
	defer c.close()
	r, err := c.send(envelope{from: "x@remote.example", rcpts: []string{"alice@example.org"}, raw: plain("x@remote.example", "alice@example.org", "cap.1@remote.example")})
	if err != nil || !r.passed() {
		t.Fatalf("a connection after one closed: %+v %v", r, err)
	}
}

// A client outside listen_allow is closed at once and counted; one inside
// is served.
func TestListenAllowRefusesOtherClients(t *testing.T) {
	srv, addr := startServer(t, Config{ListenAllow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}, nil)
	if !closedAtOnce(t, addr) {
		t.Fatal("a client outside listen_allow was served")
	}
	if got := counterValue(t, srv.Metrics().ConnectionsRefused.WithLabelValues("not_allowed")); got != 1 {
		t.Fatalf(`ndrmilter_connections_refused_total{reason="not_allowed"} = %v, want 1`, got)
	}
	srv2, addr2 := startServer(t, Config{ListenAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, nil)
	mx := dial(t, newClient(addr2), "203.0.113.1")
	defer mx.close()
	if got := counterValue(t, srv2.Metrics().ConnectionsRefused.WithLabelValues("not_allowed")); got != 0 {
		t.Fatalf("a client inside listen_allow was refused")
	}
}

// By default an idle milter connection is closed sooner than it used to be
// (10 minutes), but never before Postfix's smtpd_timeout (300 s) could
// have passed between two commands of a slow client; one that never sends
// a packet is closed after the handshake timeout.
func TestIdleTimeoutDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	if c.IdleTimeout >= 10*time.Minute || c.IdleTimeout <= 300*time.Second {
		t.Fatalf("default idle timeout %v, want between smtpd_timeout (300 s) and 10 minutes", c.IdleTimeout)
	}
	if HandshakeTimeout > 30*time.Second {
		t.Fatalf("handshake timeout %v", HandshakeTimeout)
	}
	_, addr := startServer(t, Config{IdleTimeout: 300 * time.Millisecond}, nil)
	mx := dial(t, newClient(addr), "203.0.113.1")
	defer mx.close()
	time.Sleep(time.Second)
	if _, err := mx.send(envelope{from: "x@remote.example", rcpts: []string{"alice@example.org"}, raw: plain("x@remote.example", "alice@example.org", "idle.1@remote.example")}); err == nil {
		t.Fatal("a connection idle past idle_timeout was still served")
	}
}

// A header section over 1 MiB gets a temporary failure at the end of the
// header (Postfix expects no reply to each field; go-milter keeps every
// field until the message ends); a client that goes on sending fields past
// twice the limit is cut off.
func TestHugeHeaderGetsATemporaryFailure(t *testing.T) {
	srv, addr := startServer(t, Config{}, nil)
	mx := dial(t, newClient(addr), "203.0.113.1")
	defer mx.close()
	s := mx.s
	must(t, s.Macros(gomilter.CodeMail, "{client_addr}", "203.0.113.1"))
	if _, err := s.Mail("", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rcpt("alice@example.org", nil); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 900<<10)
	for _, name := range []string{"X-Filler-1", "X-Filler-2"} {
		if _, err := s.HeaderField(name, big); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	act, err := s.HeaderEnd()
	if err != nil || act.Code != gomilter.ActReplyCode || act.SMTPCode != 451 {
		t.Fatalf("the end of a header past 1 MiB: %+v %v, want 451", act, err)
	}
	if got := counterValue(t, srv.Metrics().Tempfails.WithLabelValues("header_limit")); got != 1 {
		t.Fatalf(`ndrmilter_tempfail_total{reason="header_limit"} = %v, want 1`, got)
	}
	if srv.budget.Used() != 0 {
		t.Fatalf("%d bytes of the budget held after the temporary failure", srv.budget.Used())
	}

	// A client that sends 2.7 MiB of fields without waiting for the end of
	// the header is cut off.
	mx2 := dial(t, newClient(addr), "203.0.113.2")
	defer mx2.close()
	s = mx2.s
	must(t, s.Macros(gomilter.CodeMail, "{client_addr}", "203.0.113.2"))
	if _, err := s.Mail("", nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6 && err == nil; i++ {
		_, err = s.HeaderField("X-Filler-More", big)
	}
	if err == nil {
		_, err = s.HeaderEnd()
	}
	if err == nil {
		t.Fatal("a client sending 5.4 MiB of header fields was not cut off")
	}
}
