package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// outboundSession is a milter session for a trusted client (127.0.0.1,
// outbound), as Postfix's smtpd for a submission.
func outboundSession(t *testing.T, addr string) *gomilter.ClientSession {
	t.Helper()
	cl := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine})
	s, err := cl.Session()
	if err != nil {
		t.Fatal(err)
	}
	s.Macros(gomilter.CodeConn, "{client_addr}", "127.0.0.1")
	if _, err := s.Conn("submit.example.org", gomilter.FamilyInet, 587, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	return s
}

// sendOutbound runs one outbound message with Message-ID <id> through s and
// returns once the milter acknowledged it (its reply to the end of data).
func sendOutbound(s *gomilter.ClientSession, id string) error {
	s.Macros(gomilter.CodeMail, "{client_addr}", "127.0.0.1", "{auth_authen}", "alice")
	if _, err := s.Mail("alice@example.org", nil); err != nil {
		return err
	}
	if _, err := s.Rcpt("bob@remote.example", nil); err != nil {
		return err
	}
	for _, h := range [][2]string{{"From", "alice@example.org"}, {"To", "bob@remote.example"}, {"Subject", "hello"},
		{"Message-ID", "<" + id + ">"}} {
		if _, err := s.HeaderField(h[0], h[1]); err != nil {
			return err
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		return err
	}
	s.Macros(gomilter.CodeEOB, "i", "4Q"+strings.NewReplacer(".", "", "@", "").Replace(id)[:12])
	_, act, err := s.BodyReadFrom(strings.NewReader("Hello Bob.\r\n"))
	if err != nil {
		return err
	}
	if act.Code != gomilter.ActContinue {
		return fmt.Errorf("action %c, want continue", act.Code)
	}
	return s.Abort()
}

// A serve killed with SIGKILL the moment it acknowledged the last of a
// run of outbound messages has recorded every one of them: it acknowledges
// a message only once its record is in the ledger (or spooled). Several
// rounds on one data directory, the embedded ledger, the default settings.
func TestKillNineAfterTheLastAcknowledgedMessageLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills ndrmilter serve in child processes")
	}
	const rounds, perRound = 5, 60
	data := t.TempDir()
	var sent []string
	for round := range rounds {
		addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
		c := startChild(t, childOptions{wait: addr}, "--listen", "inet:"+addr, "--data", data, "--domain", "example.org",
			"--metrics-listen", "")
		s := outboundSession(t, addr)
		for i := range perRound {
			id := fmt.Sprintf("kill.%d.%d.%d@example.org", round, i, time.Now().UnixNano())
			if err := sendOutbound(s, id); err != nil {
				t.Fatalf("round %d, message %d: %v", round+1, i+1, err)
			}
			sent = append(sent, id)
		}
		c.kill() // at once, as the last one was acknowledged
		s.Close()
	}
	l, err := ledger.Open("", data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var lost []string
	for _, id := range sent {
		if _, err := l.ByMessageID(context.Background(), id); err != nil {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d acknowledged messages have no record after %d kills -9, the last: %s", len(lost), len(sent), rounds, lost[len(lost)-1])
	}
}

// With the data directory read-only, serve and filter start all the same:
// they say so in the log, /healthz answers 503, and mail passes: an
// outbound message is accepted, a bounce is accepted and judged "unknown".
// (The directory is made read-only in a mount namespace of the child's own:
// root, whom file modes do not stop, is refused by a read-only mount.)
func TestReadOnlyDataDirectoryStartsAndPassesMail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	data := t.TempDir()
	// A ledger from an earlier run, left read-only.
	l, err := ledger.Open("", data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	shell := "chmod -R a-w " + data
	if os.Geteuid() == 0 {
		if err := exec.Command("unshare", "-m", "true").Run(); err != nil {
			t.Skipf("root without mount namespaces (unshare -m: %v): cannot make a directory read-only for root", err)
		}
		shell = fmt.Sprintf("mount --bind -o ro %[1]s %[1]s", data)
	}
	for _, fe := range []string{"serve", "filter"} {
		t.Run(fe, func(t *testing.T) {
			addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
			maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
			o := childOptions{shell: shell, wait: addr}
			args := []string{"--data", data, "--domain", "example.org", "--metrics-listen", maddr}
			var sink *testSinkServer
			if fe == "serve" {
				args = append(args, "--listen", "inet:"+addr)
			} else {
				sink = startTestSink(t)
				o.filter = true
				args = append(args, "--listen", addr, "--next", sink.addr, "--direction", "inbound")
			}
			o.unshare = os.Geteuid() == 0
			c := startChild(t, o, args...)
			code, body := httpGet(t, maddr, "/healthz")
			if code != 503 || !strings.Contains(body, "ledger") {
				t.Errorf("/healthz = %d %q, want 503 naming the ledger", code, body)
			}
			if fe == "serve" {
				s := outboundSession(t, addr)
				if err := sendOutbound(s, "readonly.1@example.org"); err != nil {
					t.Errorf("outbound message with a read-only data directory: %v", err)
				}
				s.Close()
				mods, act := sendBounce(t, addr)
				if act.Code != gomilter.ActContinue || !hasHeader(mods, "X-NDR-Backscatter", "unknown; evidence=ledger-error") {
					t.Errorf("bounce with a read-only data directory: %c %+v, want accepted, unknown; evidence=ledger-error", act.Code, mods)
				}
			} else {
				if err := sink.send(addr, testBounce); err != nil {
					t.Errorf("bounce through the filter with a read-only data directory: %v", err)
				}
				if msgs := sink.messages(); len(msgs) != 1 || !strings.Contains(string(msgs[0]), "X-NDR-Backscatter: unknown; evidence=ledger-error") {
					t.Errorf("the bounce at the next hop: %d messages %q", len(msgs), msgs)
				}
			}
			c.stop()
			if log := c.out.String(); !strings.Contains(log, "THE LEDGER CANNOT BE OPENED") || !strings.Contains(log, "no record spool") {
				t.Errorf("the log does not say loudly that the ledger and the spool cannot be written:\n%s", log)
			}
		})
	}
	// Nothing was written in the read-only directory.
	if _, err := os.Stat(filepath.Join(data, "spool")); err == nil {
		t.Error("a spool directory was created in the read-only data directory")
	}
}

// testSinkServer is a go-smtp server playing the filter's next hop.
type testSinkServer struct {
	addr string
	k    *testSink
}

func startTestSink(t *testing.T) *testSinkServer {
	t.Helper()
	k := &testSink{}
	srv := smtp.NewServer(k)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &testSinkServer{addr: ln.Addr().String(), k: k}
}

func (s *testSinkServer) messages() [][]byte {
	s.k.mu.Lock()
	defer s.k.mu.Unlock()
	return append([][]byte(nil), s.k.msgs...)
}

// send sends msg, a bounce (null sender) to alice@example.org, through the
// SMTP server at addr.
func (s *testSinkServer) send(addr, msg string) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("mx.remote.example"); err != nil {
		return err
	}
	if err := c.SendMail("", []string{"alice@example.org"}, strings.NewReader(msg)); err != nil {
		return err
	}
	return c.Quit()
}
