// Package postfixtest starts private Postfix instances for end-to-end tests.
// Each instance has its own configuration, queue and log in a directory of
// its own, an smtpd on a free loopback port (and the master.cf services a
// test adds, such as a content filter's reinjection smtpd), SASL logins
// from its own sasldb file, and a go-smtp sink as its only next hop;
// everything it starts is stopped when the test ends.
//
// It drives the real programs (master(8), postconf, postfix, postqueue and
// sendmail from Debian's postfix package, saslpasswd2 from sasl2-bin: "make deps"
// installs them) and needs root, as master(8) does. A missing program or a
// non-root user fails the test with what to do; nothing is installed here.
//
// The configuration is in testdata/ (main.cf, master.cf and the Cyrus SASL
// smtpd.conf), templates filled with the instance's directory and
// addresses; a test adds or replaces main.cf settings and master.cf
// services with [Config], such as those of a deploy-kit file
// ([ReadSettings], [ReadServices]).
//
// The mail world of an instance: [Domain] is ours, relayed to the sink (the
// internal mail store); any other domain leaves through the same sink;
// [LocalDomain] is delivered by local(8), where no user exists, so mail to
// it comes back in a bounce Postfix writes itself; [User] logs in with SASL
// PLAIN; clients in mynetworks (127.0.0.0/8 unless a test says otherwise)
// may relay without logging in.
package postfixtest

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/freeport"
)

const (
	// Domain is the domain the instance treats as ours: it relays mail
	// for it to the sink.
	Domain = "example.org"
	// LocalDomain is the domain local(8) delivers, with no user: mail to
	// it is accepted, then bounced by Postfix itself.
	LocalDomain = "local.example.org"
	// User is the SASL login, and the address, that [Client.Login] uses.
	User = "alice@example.org"

	// password is User's SASL password in the instance's sasldb.
	password = "wonderland-e2e"
)

// KeepEnv names the environment variable that, when set, keeps each
// instance's directory after the test, for a look at its queue and log.
const KeepEnv = "POSTFIXTEST_KEEP"

//go:embed testdata/main.cf testdata/master.cf testdata/smtpd.conf
var templates embed.FS

// Config says how to set up an instance.
type Config struct {
	// Settings are main.cf lines, "name = value": each replaces the
	// template's setting of the same name, or is added after the
	// template's settings. Milters, mynetworks and the like go here.
	Settings []string
	// Services are master.cf entries (an entry line and its "-o" lines,
	// as ReadServices returns them), added to the template's. An entry for
	// the "smtp inet" service replaces the template's smtpd and listens on
	// [Instance.SMTP]; an entry with the name and type of another of the
	// template's replaces it. Chroot is turned off in every entry, as in
	// the template: the instance's queue is not a chroot jail.
	Services []string
}

// Instance is a running private Postfix.
type Instance struct {
	// SMTP is the address of its smtpd, 127.0.0.1:PORT.
	SMTP string
	// Sink is its next hop: every message that leaves arrives there.
	Sink *Sink

	t       testing.TB
	dir     string // everything lives under it
	etc     string // config_directory
	log     string // maillog_file
	running bool
}

// templateData fills the templates in testdata/.
type templateData struct {
	Dir, Log, SMTP, Relay, Domain, LocalDomain string
}

// Start configures and starts a private Postfix instance and its sink, and
// waits until its smtpd services greet. It fails the test when Postfix, the SASL
// tools or root privileges are missing, or when Postfix does not start.
func Start(t testing.TB, cfg Config) *Instance {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("postfixtest: a private Postfix instance needs root (master(8) runs as root and drops to mail_owner); run the end-to-end tests as root (make e2e)")
	}
	program(t, "postfix")
	program(t, "postconf")
	program(t, "postqueue")
	saslpasswd := program(t, "saslpasswd2")

	// Postfix's daemons run as mail_owner and must traverse every parent
	// of the queue: t.TempDir's 0700 directories would lock them out.
	dir, err := os.MkdirTemp("", "postfixtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv(KeepEnv) == "" {
			os.RemoveAll(dir)
		} else {
			t.Logf("postfixtest: %s set: the instance's files stay in %s", KeepEnv, dir)
		}
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Instance{t: t, dir: dir, etc: filepath.Join(dir, "etc"), log: filepath.Join(dir, "log", "maillog")}
	for _, d := range []string{"etc", "data", "log", "sasl", "etc/sasl"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	p.Sink = startSink(t)
	host, port, _ := net.SplitHostPort(p.Sink.Addr)
	data := templateData{
		Dir: dir, Log: p.log, Relay: "[" + host + "]:" + port,
		Domain: Domain, LocalDomain: LocalDomain,
	}
	// writeConfig writes main.cf and master.cf for a new free SMTP port,
	// and returns the smtpd addresses to wait for.
	writeConfig := func() []string {
		p.SMTP = freeAddr(t)
		data.SMTP = p.SMTP
		mainCf, err := mergeSettings(string(render(t, "main.cf", data)), cfg.Settings)
		if err != nil {
			t.Fatalf("postfixtest: %v", err)
		}
		writeFile(t, filepath.Join(p.etc, "main.cf"), []byte(mainCf))
		masterCf, smtpds, err := mergeServices(string(render(t, "master.cf", data)), p.SMTP, cfg.Services)
		if err != nil {
			t.Fatalf("postfixtest: %v", err)
		}
		writeFile(t, filepath.Join(p.etc, "master.cf"), []byte(masterCf))
		return smtpds
	}
	smtpds := writeConfig()

	params, err := p.postconf("meta_directory", "daemon_directory", "mail_owner", "setgid_group")
	if err != nil {
		t.Fatalf("postfixtest: %v", err)
	}
	uid, gid, err := lookupIDs(params["mail_owner"], "")
	if err != nil {
		t.Fatalf("postfixtest: mail_owner: %v (make deps installs Postfix)", err)
	}
	if err := os.Chown(filepath.Join(dir, "data"), uid, gid); err != nil {
		t.Fatal(err)
	}

	// SASL: smtpd (running as postfix) reads the passwords from a sasldb
	// file, and the Cyrus configuration from cyrus_sasl_config_path
	// (upstream) or $config_directory/sasl (Debian's build): write both.
	sasldb := filepath.Join(dir, "sasl", "sasldb2")
	login, realm, _ := strings.Cut(User, "@")
	cmd := exec.Command(saslpasswd, "-p", "-c", "-f", sasldb, "-u", realm, login)
	cmd.Stdin = strings.NewReader(password)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("postfixtest: saslpasswd2: %v\n%s", err, out)
	}
	if err := os.Chown(sasldb, uid, gid); err != nil {
		t.Fatal(err)
	}
	smtpdConf := render(t, "smtpd.conf", data)
	for _, d := range []string{filepath.Join(dir, "sasl"), filepath.Join(p.etc, "sasl")} {
		writeFile(t, filepath.Join(d, "smtpd.conf"), smtpdConf)
	}

	// Not "postfix start": its integrity checks ("postfix check", a few
	// dozen postconf and find runs) take seconds per instance on a busy
	// machine, for a queue that is new and empty. The queue is laid out
	// here as Postfix declares it, and master(8) started as postfix-script
	// would start it.
	if err := layOutQueue(filepath.Join(dir, "queue"), filepath.Join(params["meta_directory"], "postfix-files"), params); err != nil {
		t.Fatalf("postfixtest: %v", err)
	}
	// -w: return once master has started its services, with its status.
	// The directory must be absolute: -c ignores a relative one.
	//
	// The SMTP port was free when freeAddr closed it, and lies outside
	// the ephemeral range, but another test can pick it at the same moment
	// and master then exits (its complaint goes to syslog, not to the
	// empty maillog): a start that fails is tried again on a new port,
	// three times at most. A master that reported failure (or a slow
	// start) but still runs holds the queue's lock and would make every
	// retry fail: it is stopped first.
	for attempt := 1; ; attempt++ {
		out, err := exec.Command(filepath.Join(params["daemon_directory"], "master"), "-c", p.etc, "-w").CombinedOutput()
		if err == nil {
			break
		}
		busy := portsInUse(smtpds)
		if attempt == maxMasterStarts {
			p.stopMaster()
			t.Fatalf("postfixtest: master(8) did not start (%d tries): %v (ports of its smtpd services in use: %q)\n%s\n%s", attempt, err, busy, out, p.LogTail(30))
		}
		t.Logf("postfixtest: master(8) did not start on %s (%v: %s; ports of its smtpd services in use: %q); trying a new port", p.SMTP, err, out, busy)
		p.stopMaster()
		smtpds = writeConfig()
	}
	p.running = true
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(p.LogTail(60))
		}
		p.Stop()
	})
	for _, addr := range smtpds {
		if !waitFor(15*time.Second, func() bool { return greets(addr) }) {
			t.Fatalf("postfixtest: smtpd at %s did not greet within 15 s\n%s", addr, p.LogTail(40))
		}
	}
	return p
}

// Postconf sets main.cf settings ("name = value") with postconf -e and
// reloads Postfix.
func (p *Instance) Postconf(settings ...string) {
	p.t.Helper()
	args := append([]string{"-c", p.etc, "-e"}, settings...)
	if out, err := exec.Command(program(p.t, "postconf"), args...).CombinedOutput(); err != nil {
		p.t.Fatalf("postfixtest: postconf %q: %v\n%s", settings, err, out)
	}
	if out, err := exec.Command(program(p.t, "postfix"), "-c", p.etc, "reload").CombinedOutput(); err != nil {
		p.t.Fatalf("postfixtest: postfix reload: %v\n%s\n%s", err, out, p.LogTail(30))
	}
}

// Flush asks Postfix to retry deferred mail now (postqueue -f).
func (p *Instance) Flush() {
	p.t.Helper()
	if out, err := exec.Command(program(p.t, "postqueue"), "-c", p.etc, "-f").CombinedOutput(); err != nil {
		p.t.Fatalf("postfixtest: postqueue -f: %v\n%s", err, out)
	}
}

// Stop stops Postfix and waits (at most 10 s) for its master to exit. It
// may be called more than once; the test's end calls it too.
func (p *Instance) Stop() {
	if !p.running {
		return
	}
	p.running = false
	p.stopMaster()
}

// stopMaster stops the master(8) that master.pid names, if it runs, and
// waits (at most 10 s) for it to exit.
func (p *Instance) stopMaster() {
	// What "postfix stop" does (SIGTERM to master, which stops its
	// services), without its one-second polls: wait for master to go, so
	// that the directory is not removed under daemons still writing.
	b, err := os.ReadFile(filepath.Join(p.dir, "queue", "pid", "master.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return
	}
	if !waitFor(10*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// program returns the path of a Postfix or SASL program, looked up on PATH
// and in /usr/sbin (not on an ordinary user's PATH), or fails the test.
func program(t testing.TB, name string) string {
	t.Helper()
	p, err := lookProgram(name)
	if err != nil {
		t.Fatalf("postfixtest: %v: the end-to-end tests need Postfix and the Cyrus SASL tools; run \"make deps\" as root", err)
	}
	return p
}

func lookProgram(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s not found on PATH nor in /usr/sbin", name)
	}
	return p, nil
}

// render fills the template testdata/name.
func render(t testing.TB, name string, data templateData) []byte {
	t.Helper()
	tmpl, err := template.ParseFS(templates, "testdata/"+name)
	if err != nil {
		t.Fatalf("postfixtest: template %s: %v", name, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		t.Fatalf("postfixtest: template %s: %v", name, err)
	}
	return b.Bytes()
}

func writeFile(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// maxMasterStarts is how many times Start starts master(8), each on a new
// SMTP port, before it gives up.
const maxMasterStarts = 3

// freeAddr returns 127.0.0.1:PORT with a port that was free a moment ago,
// outside the kernel's ephemeral range (see package freeport). master.cf
// needs a fixed port: Postfix cannot be asked for port 0.
func freeAddr(t testing.TB) string {
	t.Helper()
	return freeport.Addr(t)
}

// portsInUse returns the addresses of addrs that cannot be bound: after a
// failed start, the likely reason why master(8) exited (it logs that to
// syslog, not to the instance's maillog).
func portsInUse(addrs []string) []string {
	var busy []string
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			busy = append(busy, a)
			continue
		}
		ln.Close()
	}
	return busy
}

// greets reports whether an SMTP server at addr sends a 220 greeting.
func greets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "220")
}

// waitFor polls cond every 20 ms until it is true or timeout passes, and
// reports whether it became true.
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
