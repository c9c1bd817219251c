//go:build e2e

// The end-to-end harness: a private Postfix instance (its own configuration,
// queue and log under a temporary directory, loopback ports only), an SMTP
// sink built on go-smtp as Postfix's next hop, SASL authentication from a
// sasldb file, and the ndrmilter binary run as a separate process. Everything
// it starts is stopped by t.Cleanup.

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// e2eDomain is the domain the private Postfix and ndrmilter treat as ours.
const (
	e2eDomain      = "example.org"
	e2eLocalDomain = "local.example.org" // delivered by local(8): unknown users bounce
	e2eUser        = "alice"
	e2ePassword    = "wonderland-e2e"
)

// waitFor polls cond every 20 ms until it is true or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int { return redistest.FreePort(t) }

// dialable reports whether something accepts TCP connections at addr.
func dialable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// ---- SMTP sink ----

// sinkMessage is one message the sink received.
type sinkMessage struct {
	From   string
	To     []string
	Data   []byte
	Header mail.Header
}

// sink is the next hop after Postfix: it accepts everything and keeps it.
type sink struct {
	Addr string
	srv  *smtp.Server

	mu   sync.Mutex
	msgs []sinkMessage
}

func startSink(t testing.TB) *sink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sink: %v", err)
	}
	s := &sink{Addr: l.Addr().String()}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &sinkSession{sink: s}, nil
	}))
	s.srv.Domain = "sink.test"
	s.srv.AllowInsecureAuth = true
	s.srv.MaxMessageBytes = 64 << 20
	s.srv.ReadTimeout = 30 * time.Second
	s.srv.WriteTimeout = 30 * time.Second
	go s.srv.Serve(l)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

type sinkSession struct {
	sink *sink
	from string
	to   []string
}

func (ss *sinkSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *sinkSession) Logout() error { return nil }
func (ss *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}
func (ss *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, strings.ToLower(to))
	return nil
}
func (ss *sinkSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := sinkMessage{From: ss.from, To: ss.to, Data: data}
	if msg, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.Header = msg.Header
	}
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, m)
	ss.sink.mu.Unlock()
	return nil
}

// messages returns a copy of what the sink holds.
func (s *sink) messages() []sinkMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sinkMessage(nil), s.msgs...)
}

// await waits up to timeout for a message that match accepts.
func (s *sink) await(timeout time.Duration, match func(sinkMessage) bool) (sinkMessage, bool) {
	var found sinkMessage
	ok := waitFor(timeout, func() bool {
		for _, m := range s.messages() {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found, ok
}

// withHeader matches a message whose header name contains substr.
func withHeader(name, substr string) func(sinkMessage) bool {
	return func(m sinkMessage) bool {
		return m.Header != nil && strings.Contains(m.Header.Get(name), substr)
	}
}

// ---- Postfix ----

// postfix is a private Postfix instance.
type postfix struct {
	t       testing.TB
	Dir     string // everything lives under it
	Etc     string // config_directory
	Log     string // maillog_file
	SMTP    string // smtpd listener, 127.0.0.1:PORT
	running bool
}

// postfixConfig says how to set up an instance.
type postfixConfig struct {
	NextHop string // sink address, host:port
	Milter  string // Postfix milter address ("inet:127.0.0.1:PORT"), "" for none
	// Extra main.cf settings, "name = value", applied last.
	Extra []string
}

// startPostfix configures and starts a private Postfix instance.
func startPostfix(t testing.TB, cfg postfixConfig) *postfix {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a private Postfix instance needs root (master runs as root and drops to mail_owner)")
	}
	installDeps(t)
	// Postfix's daemons run as mail_owner and must traverse every parent of
	// the queue: t.TempDir's 0700 directories would lock them out.
	dir, err := os.MkdirTemp("", "ndrmilter-e2e-postfix-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("E2E_KEEP") == "" {
			os.RemoveAll(dir)
		}
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &postfix{t: t, Dir: dir, Etc: filepath.Join(dir, "etc"), Log: filepath.Join(dir, "log", "maillog")}
	// -L: a copied symlink (dynamicmaps.cf.d, sasl) breaks "postfix check".
	if out, err := exec.Command("cp", "-rL", "/etc/postfix", p.Etc).CombinedOutput(); err != nil {
		t.Fatalf("copy /etc/postfix: %v\n%s", err, out)
	}
	owner, err := user.Lookup("postfix")
	if err != nil {
		t.Fatalf("postfix user: %v", err)
	}
	uid, _ := strconv.Atoi(owner.Uid)
	gid, _ := strconv.Atoi(owner.Gid)
	for _, d := range []string{"queue", "data", "log", "sasl"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(filepath.Join(dir, "data"), uid, gid); err != nil {
		t.Fatal(err)
	}

	// SASL: Cyrus reads smtpd.conf from cyrus_sasl_config_path, and the
	// passwords from a sasldb file that smtpd (running as postfix) can read.
	sasldb := filepath.Join(dir, "sasl", "sasldb2")
	cmd := exec.Command("saslpasswd2", "-p", "-c", "-f", sasldb, "-u", e2eDomain, e2eUser)
	cmd.Stdin = strings.NewReader(e2ePassword)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("saslpasswd2: %v\n%s (is sasl2-bin installed? scripts/deps)", err, out)
	}
	if err := os.Chown(sasldb, uid, gid); err != nil {
		t.Fatal(err)
	}
	smtpdConf := fmt.Sprintf("pwcheck_method: auxprop\nauxprop_plugin: sasldb\nsasldb_path: %s\nmech_list: PLAIN LOGIN\n", sasldb)
	// Upstream Postfix reads it from cyrus_sasl_config_path; Debian's build
	// from $config_directory/sasl: write both.
	for _, d := range []string{filepath.Join(dir, "sasl"), filepath.Join(p.Etc, "sasl")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "smtpd.conf"), []byte(smtpdConf), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	smtpPort := freePort(t)
	p.SMTP = fmt.Sprintf("127.0.0.1:%d", smtpPort)
	mainCf := []string{
		"compatibility_level = 3.6",
		"queue_directory = " + filepath.Join(dir, "queue"),
		"data_directory = " + filepath.Join(dir, "data"),
		"inet_interfaces = 127.0.0.1",
		"inet_protocols = ipv4",
		"maillog_file = " + p.Log,
		"maillog_file_prefixes = /var, /dev/stdout, " + filepath.Join(dir, "log"),
		"myhostname = mx." + e2eDomain,
		"mydomain = " + e2eDomain,
		"myorigin = " + e2eDomain,
		"mydestination = " + e2eLocalDomain,
		"alias_maps =",
		"alias_database =",
		// Accept any local user at RCPT time, then bounce unknown ones: the
		// bounce Postfix itself writes, for test d.
		"local_recipient_maps =",
		// example.org is relayed to the sink (the internal mail store);
		// everything else goes out through the same sink.
		"relay_domains = " + e2eDomain,
		"relayhost = [" + strings.Replace(cfg.NextHop, ":", "]:", 1),
		"transport_maps =",
		"mynetworks = 127.0.0.0/8",
		"smtpd_relay_restrictions = permit_mynetworks permit_sasl_authenticated reject_unauth_destination",
		"smtp_dns_support_level = disabled",
		// No PTR look-ups of clients: only loopback traffic, no DNS wait.
		"smtpd_peername_lookup = no",
		"smtpd_sasl_auth_enable = yes",
		"smtpd_sasl_type = cyrus",
		"smtpd_sasl_path = smtpd",
		"cyrus_sasl_config_path = " + filepath.Join(dir, "sasl"),
		"smtpd_sasl_security_options = noanonymous",
		"smtpd_sasl_local_domain = " + e2eDomain,
		"smtpd_tls_security_level = none",
		"smtp_tls_security_level = none",
		"smtpd_helo_required = no",
		"biff = no",
		// A private instance must not wait on the defaults meant for the Internet.
		"queue_run_delay = 1s",
		"minimal_backoff_time = 1s",
		"maximal_backoff_time = 2s",
		"bounce_queue_lifetime = 1d",
		"default_destination_concurrency_limit = 20",
	}
	if cfg.Milter != "" {
		// The milter settings are those of the deploy kit, so that the
		// snippet users copy is the one tested.
		milterCf, err := deployMainCf(cfg.Milter)
		if err != nil {
			t.Fatal(err)
		}
		mainCf = append(mainCf, milterCf...)
	}
	mainCf = append(mainCf, cfg.Extra...)
	if err := os.WriteFile(filepath.Join(p.Etc, "main.cf"), []byte(strings.Join(mainCf, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A master.cf of our own: the one smtpd listener on a loopback port,
	// chroot off everywhere (the queue is not under a chroot jail).
	masterCf := fmt.Sprintf(`%s inet n - n - - smtpd
pickup     unix  n       -       n       60      1       pickup
cleanup    unix  n       -       n       -       0       cleanup
qmgr       unix  n       -       n       300     1       qmgr
rewrite    unix  -       -       n       -       -       trivial-rewrite
bounce     unix  -       -       n       -       0       bounce
defer      unix  -       -       n       -       0       bounce
trace      unix  -       -       n       -       0       bounce
verify     unix  -       -       n       -       1       verify
flush      unix  n       -       n       1000?   0       flush
proxymap   unix  -       -       n       -       -       proxymap
proxywrite unix  -       -       n       -       1       proxymap
smtp       unix  -       -       n       -       -       smtp
relay      unix  -       -       n       -       -       smtp
showq      unix  n       -       n       -       -       showq
error      unix  -       -       n       -       -       error
retry      unix  -       -       n       -       -       error
discard    unix  -       -       n       -       -       discard
local      unix  -       n       n       -       -       local
scache     unix  -       -       n       -       1       scache
anvil      unix  -       -       n       -       1       anvil
postlog    unix-dgram n  -       n       -       1       postlogd
`, p.SMTP)
	if err := os.WriteFile(filepath.Join(p.Etc, "master.cf"), []byte(masterCf), 0o644); err != nil {
		t.Fatal(err)
	}
	// "postfix start" runs "postfix check" first and fails on its errors.
	p.run("start")
	p.running = true
	t.Cleanup(p.stop)
	if !waitFor(15*time.Second, func() bool { return smtpGreets(p.SMTP) }) {
		t.Fatalf("postfix smtpd at %s did not greet within 15s\n%s", p.SMTP, p.LogTail(40))
	}
	return p
}

// deployMainCf returns the active settings of deploy/postfix/main.cf with
// its milter address replaced by milter.
func deployMainCf(milter string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "postfix", "main.cf"))
	if err != nil {
		return nil, fmt.Errorf("the deploy kit's main.cf: %v", err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if !strings.Contains(line, "=") {
			return nil, fmt.Errorf("deploy/postfix/main.cf: not a setting: %q", line)
		}
		out = append(out, strings.ReplaceAll(line, "inet:127.0.0.1:8891", milter))
	}
	if len(out) == 0 || !strings.Contains(strings.Join(out, "\n"), milter) {
		return nil, fmt.Errorf("deploy/postfix/main.cf: no smtpd_milters = inet:127.0.0.1:8891 to point at the test milter")
	}
	return out, nil
}

var depsOnce sync.Once

// installDeps runs scripts/deps (apt-get, non-interactive) once when Postfix,
// smtp-source or saslpasswd2 is missing, so that the suite runs on a fresh
// machine without "make deps" first.
func installDeps(t testing.TB) {
	t.Helper()
	missing := false
	for _, c := range []string{"postfix", "postconf", "saslpasswd2"} {
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat("/usr/sbin/" + c); err != nil {
				missing = true
			}
		}
	}
	if !missing {
		return
	}
	var out []byte
	var err error
	depsOnce.Do(func() {
		out, err = exec.Command(filepath.Join("..", "..", "scripts", "deps")).CombinedOutput()
	})
	if err != nil {
		t.Fatalf("Postfix or the SASL tools are missing and scripts/deps failed: %v\n%s", err, out)
	}
}

// smtpGreets reports whether an SMTP server at addr sends a 220 greeting.
func smtpGreets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "220")
}

// run runs "postfix -c ETC args..." and fails the test on error. The
// directory must be absolute: postfix -c ignores a relative one silently.
func (p *postfix) run(args ...string) {
	p.t.Helper()
	out, err := exec.Command("postfix", append([]string{"-c", p.Etc}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("postfix %s: %v\n%s\n%s", strings.Join(args, " "), err, out, p.LogTail(30))
	}
}

// Postconf sets main.cf parameters and reloads Postfix.
func (p *postfix) Postconf(settings ...string) {
	p.t.Helper()
	out, err := exec.Command("postconf", append([]string{"-c", p.Etc, "-e"}, settings...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("postconf %v: %v\n%s", settings, err, out)
	}
	p.run("reload")
}

// Flush asks Postfix to retry deferred mail now.
func (p *postfix) Flush() {
	exec.Command("postqueue", "-c", p.Etc, "-f").Run()
}

func (p *postfix) stop() {
	if !p.running {
		return
	}
	p.running = false
	exec.Command("postfix", "-c", p.Etc, "stop").Run()
	// master exits asynchronously: wait for its pid file's process to go so
	// that RemoveAll does not race with daemons writing the queue.
	pidFile := filepath.Join(p.Dir, "queue", "pid", "master.pid")
	waitFor(10*time.Second, func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return true
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return true
		}
		return syscall.Kill(pid, 0) != nil
	})
}

// LogText returns the whole Postfix log.
func (p *postfix) LogText() string {
	b, _ := os.ReadFile(p.Log)
	return string(b)
}

// LogTail returns the last n lines of the Postfix log, for failure messages.
func (p *postfix) LogTail(n int) string {
	lines := strings.Split(strings.TrimRight(p.LogText(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "--- postfix log (tail) ---\n" + strings.Join(lines, "\n")
}

// AwaitLog waits until a log line matches re and returns its submatches.
func (p *postfix) AwaitLog(timeout time.Duration, re *regexp.Regexp) ([]string, bool) {
	var m []string
	ok := waitFor(timeout, func() bool {
		m = re.FindStringSubmatch(p.LogText())
		return m != nil
	})
	return m, ok
}

// milterTrouble returns the log lines in which Postfix complains about a
// milter: warnings, errors and protocol trouble.
func milterTrouble(log string) []string {
	var bad []string
	for _, line := range strings.Split(log, "\n") {
		l := strings.ToLower(line)
		if !strings.Contains(l, "milter") {
			continue
		}
		if strings.Contains(l, "warning") || strings.Contains(l, "error") || strings.Contains(l, "fatal") ||
			strings.Contains(l, "panic") || strings.Contains(l, "unexpected") || strings.Contains(l, "timeout") {
			bad = append(bad, line)
		}
	}
	return bad
}

// ---- ndrmilter process ----

var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

// ndrmilterBinary builds the binary once per test run, or returns
// $NDRMILTER_BIN when it is set (a binary built elsewhere, e.g. by CI).
func ndrmilterBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if bin := os.Getenv("NDRMILTER_BIN"); bin != "" {
			binPath, binErr = filepath.Abs(bin)
			return
		}
		dir, err := os.MkdirTemp("", "ndrmilter-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ndrmilter")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestMain removes the binary ndrmilterBinary built, after all tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" && os.Getenv("NDRMILTER_BIN") == "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// milterProc is a running "ndrmilter serve".
type milterProc struct {
	t       testing.TB
	Addr    string // host:port
	Metrics string // host:port of the metrics listener
	Data    string
	cmd     *exec.Cmd
	out     *bytes.Buffer
	outMu   *sync.Mutex
	done    chan struct{}
}

// startMilter runs "ndrmilter serve" on a fixed address (so that Postfix's
// configuration survives a restart) with extra flags.
func startMilter(t testing.TB, addr, dataDir string, extra ...string) *milterProc {
	t.Helper()
	bin := ndrmilterBinary(t)
	m := &milterProc{t: t, Addr: addr, Data: dataDir, out: new(bytes.Buffer), outMu: new(sync.Mutex), done: make(chan struct{})}
	m.Metrics = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	args := append([]string{"serve", "--listen", "inet:" + addr, "--data", dataDir, "--domain", e2eDomain,
		"--metrics-listen", m.Metrics}, extra...)
	m.cmd = exec.Command(bin, args...)
	w := &lockedWriter{mu: m.outMu, w: m.out}
	m.cmd.Stdout, m.cmd.Stderr = w, w
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start ndrmilter: %v", err)
	}
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(m.Stop)
	ok := waitFor(15*time.Second, func() bool {
		select {
		case <-m.done:
			return true
		default:
		}
		return dialable(addr)
	})
	select {
	case <-m.done:
		t.Fatalf("ndrmilter serve %v exited at start:\n%s", args, m.Output())
	default:
	}
	if !ok {
		t.Fatalf("ndrmilter did not listen on %s within 15s:\n%s", addr, m.Output())
	}
	return m
}

// Stop sends SIGTERM and waits (bounded) for the process to exit.
func (m *milterProc) Stop() {
	select {
	case <-m.done:
		return
	default:
	}
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// Output returns what the process wrote so far.
func (m *milterProc) Output() string {
	m.outMu.Lock()
	defer m.outMu.Unlock()
	return m.out.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// ---- SMTP client ----

// smtpSession is a client connection to the private Postfix.
type smtpSession struct {
	t testing.TB
	c *smtp.Client
}

// dialSMTP opens a session; with auth it logs in as alice.
func dialSMTP(t testing.TB, pf *postfix, auth bool) *smtpSession {
	t.Helper()
	addr := pf.SMTP
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout = 30 * time.Second
	c.SubmissionTimeout = 60 * time.Second
	if err := c.Hello("client.e2e.test"); err != nil {
		t.Fatalf("EHLO: %v", err)
	}
	if auth {
		if err := c.Auth(sasl.NewPlainClient("", e2eUser+"@"+e2eDomain, e2ePassword)); err != nil {
			t.Fatalf("AUTH PLAIN as %s@%s: %v\n%s", e2eUser, e2eDomain, err, pf.LogTail(20))
		}
	}
	t.Cleanup(func() { c.Close() })
	return &smtpSession{t: t, c: c}
}

// Send transmits one message; it returns the server's error for DATA (or
// an earlier command), nil when the message was accepted.
func (s *smtpSession) Send(from string, to []string, msg string) error {
	if err := s.c.Mail(from, nil); err != nil {
		return err
	}
	for _, r := range to {
		if err := s.c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := s.c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, strings.ReplaceAll(msg, "\n", "\r\n")); err != nil {
		return err
	}
	return w.Close()
}

// Quit ends the session politely.
func (s *smtpSession) Quit() { s.c.Quit() }

// smtpError returns err as an *smtp.SMTPError, or nil.
func smtpError(err error) *smtp.SMTPError {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

// ---- one environment: Postfix + sink + ndrmilter ----

// e2eEnv wires the three together.
type e2eEnv struct {
	t       *testing.T // the test that owns the processes (not a subtest)
	Sink    *sink
	Postfix *postfix
	Milter  *milterProc
	Addr    string // the milter's fixed address
	Data    string // its data directory
}

func newE2EEnv(t *testing.T, milterFlags ...string) *e2eEnv {
	t.Helper()
	env := &e2eEnv{t: t}
	env.Sink = startSink(t)
	env.Addr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env.Data = t.TempDir()
	env.Milter = startMilter(t, env.Addr, env.Data, milterFlags...)
	env.Postfix = startPostfix(t, postfixConfig{NextHop: env.Sink.Addr, Milter: "inet:" + env.Addr})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s\n--- ndrmilter output ---\n%s", env.Postfix.LogTail(60), env.Milter.Output())
		}
	})
	return env
}

// RestartMilter stops ndrmilter and starts it again on the same address and
// data directory with other flags. The new process belongs to the top-level
// test, so that a subtest's end does not stop it.
func (env *e2eEnv) RestartMilter(t *testing.T, flags ...string) {
	t.Helper()
	env.Milter.Stop()
	env.Milter = startMilter(env.t, env.Addr, env.Data, flags...)
}

// uniqueID returns a Message-ID local part unique to this run.
func uniqueID(tag string) string {
	return fmt.Sprintf("%s.%d.%d@client.e2e.test", tag, time.Now().UnixNano(), os.Getpid())
}
