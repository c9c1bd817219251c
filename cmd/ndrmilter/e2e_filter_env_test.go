//go:build e2e

// The filter's end-to-end tests run "ndrmilter filter" as a separate
// process between a private Postfix (internal/postfixtest) and Postfix's
// reinjection listener, in each of the deploy kit's two set-ups, configured
// from the files admins copy:
//
//   - after the queue (deploy/postfix/filter-after-queue.cf): content_filter
//     hands each queued message to the ndrfilter transport (Postfix's smtp
//     client), which gives it to the filter, which gives it to the
//     reinjection smtpd;
//   - before the queue (deploy/postfix/filter-before-queue.cf): the port-25
//     smtpd proxies each transaction through the filter to the after-filter
//     smtpd (smtpd_proxy_filter) while its client waits.
//
// The filter's command line is the one the file gives in its comments, its
// main.cf settings and master.cf entries are the file's, and the
// submission service is the one its comments tell admins to add; the test
// changes only the addresses (free loopback ports in place of 9893, 9894
// and 9895, the instance's smtpd in place of port 25), the data directory,
// and chroot (off, as everywhere in postfixtest's instances).
//
// The network plan differs from the milter tests': Postfix reaches the
// filter from 127.0.0.1, which the filter must trust to take XFORWARD from
// it, so "the Internet" is 127.0.0.9 here. 127.0.0.2 is a trusted internal
// host (Postfix mynetworks and the filter's --trusted-networks), and
// alice@example.org logs in on the submission service.

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// outsideIP is the Internet in the filter tests (see above).
const outsideIP = "127.0.0.9"

// filterTrustedNetworks are the filter's trusted networks in the tests:
// Postfix's own hop to the filter and the trusted internal host.
var filterTrustedNetworks = "127.0.0.1/32," + trustedIP + "/32"

// filterSetup is one of the deploy kit's filter set-ups.
type filterSetup struct {
	Name string // after-queue, before-queue
	File string // its file in deploy/postfix
	// AfterQueue: the message is in Postfix's queue before it reaches the
	// filter (content_filter); else the client waits while it passes
	// (smtpd_proxy_filter).
	AfterQueue bool
	// Uncomment are "-o" lines the file ships commented out that this
	// variant turns on, such as "-o smtpd_proxy_options=speed_adjust".
	Uncomment []string
}

var (
	afterQueue  = filterSetup{Name: "after-queue", File: "filter-after-queue.cf", AfterQueue: true}
	beforeQueue = filterSetup{Name: "before-queue", File: "filter-before-queue.cf"}
	// beforeQueueSpeedAdjust is the before-queue set-up with the option the
	// file offers commented out: Postfix takes the whole message before it
	// connects to the filter.
	beforeQueueSpeedAdjust = filterSetup{Name: "before-queue-speed-adjust", File: "filter-before-queue.cf",
		Uncomment: []string{"-o smtpd_proxy_options=speed_adjust"}}
	filterSetups = []filterSetup{afterQueue, beforeQueue}
)

// forEachFilterSetup runs test as a parallel subtest for each set-up.
func forEachFilterSetup(t *testing.T, setups []filterSetup, test func(t *testing.T, s filterSetup)) {
	t.Parallel()
	for _, s := range setups {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			test(t, s)
		})
	}
}

// filterEnv is one private mail site with ndrmilter filter in the path.
type filterEnv struct {
	t       *testing.T
	Setup   filterSetup
	Postfix *postfixtest.Instance
	Filter  *milterProc
	// Listen and ListenOutbound are the filter's listeners (the kit's
	// 9893 and 9895), Reinject the reinjection or after-filter smtpd
	// (9894), Submission the submission service alice logs in on.
	Listen, ListenOutbound, Reinject, Submission string
	Data                                         string // the filter's data directory (the embedded ledger)
	args                                         []string
	filterWasDown                                bool
}

// filterEnvConfig says how to set up a filterEnv beyond the deploy kit.
type filterEnvConfig struct {
	// FilterFlags are more flags for ndrmilter filter (after the kit's:
	// a flag given again overrides it).
	FilterFlags []string
	// Via, when set, is put in the filter's place in Postfix's
	// configuration (content_filter, smtpd_proxy_filter): something that
	// passes the connection on to Listen, such as a tap.
	Via func(listen string) string
}

// newFilterEnv starts ndrmilter filter, then a Postfix configured with the
// set-up's deploy-kit file. At the test's end it fails the test when
// Postfix logged a warning or an error (beyond not reaching the filter
// after StopFilter).
func newFilterEnv(t *testing.T, setup filterSetup, cfg filterEnvConfig) *filterEnv {
	t.Helper()
	free := func() string { return fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)) }
	env := &filterEnv{t: t, Setup: setup, Listen: free(), ListenOutbound: free(), Reinject: free(),
		Submission: free(), Data: t.TempDir()}
	path := filepath.Join("..", "..", "deploy", "postfix", setup.File)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kit := string(text)
	for _, line := range setup.Uncomment {
		re := regexp.MustCompile(`(?m)^#(\s+` + regexp.QuoteMeta(line) + `\s*)$`)
		if !re.MatchString(kit) {
			t.Fatalf("%s: no commented-out line %q to turn on", path, line)
		}
		kit = re.ReplaceAllString(kit, " $1")
	}
	proxied := env.Listen
	if cfg.Via != nil {
		proxied = cfg.Via(env.Listen)
	}
	// The kit's addresses, in both notations (transport nexthops put the
	// host in brackets).
	kitAddrs := []struct{ kit, test string }{
		{"127.0.0.1:9893", proxied}, {"127.0.0.1:9894", env.Reinject}, {"127.0.0.1:9895", env.ListenOutbound},
	}
	localize := func(s string) string {
		for _, a := range kitAddrs {
			host, port, _ := net.SplitHostPort(a.test)
			s = strings.ReplaceAll(s, a.kit, a.test)
			s = strings.ReplaceAll(s, "[127.0.0.1]:"+strings.TrimPrefix(a.kit, "127.0.0.1:"), "["+host+"]:"+port)
		}
		return s
	}
	tmp := filepath.Join(t.TempDir(), setup.File)
	if err := os.WriteFile(tmp, []byte(localize(kit)), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := postfixtest.ReadSettings(tmp)
	if err != nil {
		t.Fatalf("the deploy kit's %s: %v", setup.File, err)
	}
	services, err := postfixtest.ReadServices(tmp)
	if err != nil {
		t.Fatalf("the deploy kit's %s: %v", setup.File, err)
	}
	submission := kitExample(t, path, kit, "submission")
	services = append(services, localize(strings.Replace(submission, "submission", env.Submission, 1)))
	joined := strings.Join(append(settings, services...), "\n")
	for _, a := range kitAddrs[:2] {
		if !strings.Contains(joined, strings.TrimPrefix(a.test, "127.0.0.1")) {
			t.Fatalf("%s: Postfix's part names no %s (the tests replace it with %s):\n%s", path, a.kit, a.test, joined)
		}
	}

	env.args = localizeArgs(kitCommand(t, path, kit), env)
	env.args = append(env.args, "--trusted-networks", filterTrustedNetworks, "--log-level", "debug")
	env.args = append(env.args, cfg.FilterFlags...)
	env.Filter = startFilterProc(t, env.Listen, env.args)

	env.Postfix = postfixtest.Start(t, postfixtest.Config{
		Settings: append(settings, "mynetworks = "+trustedIP+"/32"),
		Services: services,
	})
	t.Logf("%s: Postfix main.cf: %q; master.cf: %q; filter: %q", setup.Name, settings, services, env.args)
	t.Cleanup(func() {
		for _, line := range env.filterComplaints() {
			t.Errorf("Postfix complained: %s", line)
		}
		if t.Failed() {
			t.Logf("--- ndrmilter filter output ---\n%s", tail(env.Filter.Output(), 60))
		}
	})
	return env
}

// kitCommand returns the "ndrmilter filter --..." command line a
// deploy-kit file gives in its comments: its arguments after "filter".
func kitCommand(t *testing.T, path, kit string) []string {
	t.Helper()
	var cmd string
	in := false
	for _, line := range strings.Split(kit, "\n") {
		l := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if strings.HasPrefix(l, "ndrmilter filter --") {
			in = true
		}
		if !in {
			continue
		}
		cont := strings.HasSuffix(l, `\`)
		cmd += " " + strings.TrimSuffix(l, `\`)
		if !cont {
			break
		}
	}
	f := strings.Fields(cmd)
	if len(f) < 3 {
		t.Fatalf("%s: no \"ndrmilter filter --...\" command line in its comments", path)
	}
	return f[2:]
}

// localizeArgs puts the test's addresses and data directory into the
// kit's command line.
func localizeArgs(args []string, env *filterEnv) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		switch out[i] {
		case "--listen":
			out[i+1] = env.Listen
		case "--listen-outbound":
			out[i+1] = env.ListenOutbound
		case "--next":
			out[i+1] = env.Reinject
		case "--data":
			out[i+1] = env.Data
		}
	}
	mf := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(env.t))
	return append(out, "--metrics-listen", mf)
}

// kitExample returns the master.cf entry for service that a deploy-kit file
// shows in its comments ("#   submission inet ..." and its "#     -o ..."
// lines), without the placeholder for the admin's own lines.
func kitExample(t *testing.T, path, kit, service string) string {
	t.Helper()
	var entry string
	for _, line := range strings.Split(kit, "\n") {
		l := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case len(strings.Fields(l)) >= 8 && strings.Fields(l)[0] == service && strings.Fields(l)[1] == "inet":
			entry = l
		case entry != "" && strings.HasPrefix(l, "-o "):
			entry += " " + l
		case entry != "" && strings.HasPrefix(l, "..."):
		case entry != "":
			return entry
		}
	}
	if entry == "" {
		t.Fatalf("%s: no example entry for the %s service in its comments", path, service)
	}
	return entry
}

// postfixComplaint matches a line Postfix logs with a severity (msg(3)).
var postfixComplaint = regexp.MustCompile(`postfix/[^\[]+\[\d+\]: (warning|error|fatal|panic): `)

// filterComplaints returns Postfix's warnings, errors and worse: about the
// content filter transport or the proxy, and the reinjection smtpd.
func (env *filterEnv) filterComplaints() []string {
	var bad []string
	for _, line := range strings.Split(env.Postfix.Log(), "\n") {
		if !postfixComplaint.MatchString(line) {
			continue
		}
		if env.filterWasDown && strings.Contains(line, "Connection refused") {
			continue
		}
		bad = append(bad, line)
	}
	return bad
}

// StopFilter stops the filter (SIGTERM: it drains).
func (env *filterEnv) StopFilter() {
	env.filterWasDown = true
	env.Filter.Stop()
}

// StartFilter starts the filter again after StopFilter, as it ran.
func (env *filterEnv) StartFilter() {
	env.t.Helper()
	env.Filter.Stop()
	env.Filter = startFilterProc(env.t, env.Listen, env.args)
}

// Await waits for a message that match accepts to reach the sink, or fails
// the test saying what did not arrive.
func (env *filterEnv) Await(what string, match func(postfixtest.Message) bool) postfixtest.Message {
	env.t.Helper()
	m, ok := env.Postfix.Sink.Await(deliverWait, match)
	if !ok {
		env.t.Fatalf("%s did not reach the sink within %s\n%s\n--- ndrmilter filter ---\n%s", what, deliverWait,
			env.Postfix.LogTail(40), tail(env.Filter.Output(), 20))
	}
	return m
}

// Lookup asks the ledger about the message <id>; the filter must be stopped
// (the embedded ledger has one writer).
func (env *filterEnv) Lookup(id string) lookupRecord {
	env.t.Helper()
	return ledgerLookup(env.t, env.Data, id)
}

// startFilterProc runs "ndrmilter filter args", listening on addr, until
// the test's end.
func startFilterProc(t *testing.T, addr string, args []string) *milterProc {
	t.Helper()
	return startProc(t, addr, append([]string{"filter"}, args...))
}

// tap is a TCP relay that keeps the SMTP conversation passing through it,
// the commands and the replies, without the message data.
type tap struct {
	mu    sync.Mutex
	lines []string
}

// startTap relays connections to target and returns the tap and its
// address; it stops at the test's end.
func startTap(t *testing.T, target string) (*tap, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	tp := &tap{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go tp.relay(c, target)
		}
	}()
	return tp, ln.Addr().String()
}

func (tp *tap) relay(c net.Conn, target string) {
	defer c.Close()
	s, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		tp.add("tap: " + err.Error())
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { tp.copy(s, c, "C: ", true); s.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { tp.copy(c, s, "S: ", false); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}

// copy passes r on to w line by line, keeping each line with its prefix;
// on the client side, the lines between DATA's 354 and the final "." are
// passed on but not kept.
func (tp *tap) copy(w io.Writer, r io.Reader, prefix string, client bool) {
	br := bufio.NewReader(r)
	inData := false
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			if _, werr := io.WriteString(w, line); werr != nil {
				return
			}
			l := strings.TrimRight(line, "\r\n")
			switch {
			case client && inData:
				if l == "." {
					inData = false
					tp.add(prefix + "<message data>")
					tp.add(prefix + ".")
				}
			default:
				tp.add(prefix + l)
				if client && strings.EqualFold(l, "DATA") {
					inData = true
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (tp *tap) add(line string) {
	tp.mu.Lock()
	tp.lines = append(tp.lines, line)
	tp.mu.Unlock()
}

// Lines returns the conversation so far.
func (tp *tap) Lines() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.lines...)
}
