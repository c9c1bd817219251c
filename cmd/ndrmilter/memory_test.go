package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
)

// listBounce is a list server's bounce of about size bytes: one RFC 3464
// record per failed member (about 11,000 in 2 MB), and the headers of the
// list message, which we never sent.
func listBounce(size int) ([]byte, int) {
	var b strings.Builder
	b.WriteString("From: MAILER-DAEMON@lists.remote.example (Mail Delivery System)\r\nTo: owner@example.org\r\n" +
		"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <list.bounce.1@lists.remote.example>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"LB\"\r\n\r\n" +
		"--LB\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nThe list message could not be delivered to its members.\r\n" +
		"--LB\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: owner@example.org\r\nTo: members@lists.remote.example\r\n" +
		"Subject: November newsletter\r\nMessage-ID: <newsletter.11@example.org>\r\n\r\n" +
		"--LB\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; lists.remote.example\r\n\r\n")
	n := 0
	for ; b.Len() < size-200; n++ {
		fmt.Fprintf(&b, "Final-Recipient: rfc822; member%05d@subscribers%02d.example\r\nAction: failed\r\nStatus: 5.1.1\r\n"+
			"Diagnostic-Code: smtp; 550 5.1.1 <member%05d@subscribers%02d.example>: user unknown\r\n\r\n", n, n%50, n, n%50)
	}
	b.WriteString("--LB--\r\n")
	return []byte(b.String()), n
}

// unitEnvironment returns the value the systemd unit gives name in an
// Environment= line, so that the test runs serve as the unit does.
func unitEnvironment(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "deploy", "ndrmilter.service"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Environment="+name+"="); ok {
			return v
		}
	}
	t.Fatalf("deploy/ndrmilter.service sets no %s", name)
	return ""
}

// A hundred 2 MB list bounces of about 11,000 failed recipients each, at
// once, keep serve (run as the unit runs it, with its GOMEMLIMIT) under
// 512 MB of resident memory at its peak (VmHWM), and every one is accepted
// and explained. (Before the memory budget, 250 such bounces reached 1.41 GB.)
func TestHundredListBouncesAtOnceStayUnder512MB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process with 200 MB of bounces")
	}
	const (
		concurrent = 100
		limitKB    = 512 * 1000 * 1000 / 1024 // 512 MB
	)
	raw, members := listBounce(2_000_000)
	if members < 10_500 || members > 12_000 {
		t.Fatalf("the list bounce has %d members, want about 11,000", members)
	}
	head, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	memLimit := unitEnvironment(t, "GOMEMLIMIT")
	c := startChild(t, childOptions{wait: addr, env: []string{"GOMEMLIMIT=" + memLimit}},
		"--listen", "inet:"+addr, "--data", t.TempDir(), "--domain", "example.org", "--metrics-listen", maddr,
		"--max-connections", "200")
	base := c.status("VmRSS")

	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, concurrent)
	explained := make([]bool, concurrent)
	for i := range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			explained[i], errs[i] = sendRaw(addr, fmt.Sprintf("203.0.113.%d", i+1), head, body, start)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)
	peak := c.status("VmHWM")
	n := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("bounce %d: %v", i+1, err)
		}
		if explained[i] {
			n++
		}
	}
	t.Logf("%d list bounces of %d bytes (%d members) at once in %v: serve's peak RSS %d kB (%d kB at start), GOMEMLIMIT=%s, %d explained",
		concurrent, len(raw), members, took.Round(time.Millisecond), peak, base, memLimit, n)
	if peak >= limitKB {
		t.Errorf("serve's peak RSS %d kB, want under %d kB (512 MB)", peak, limitKB)
	}
	if n != concurrent {
		t.Errorf("%d of %d bounces explained, want all: the budget (256 MiB) holds 100 of 2 MB", n, concurrent)
	}
}

// sendRaw runs one message through the milter at addr as Postfix would,
// once start is closed, and says whether it was accepted (continue) and
// explained (X-NDR-Explanation added).
func sendRaw(addr, clientIP string, head, body []byte, start <-chan struct{}) (bool, error) {
	cl := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine})
	s, err := cl.Session()
	if err != nil {
		return false, err
	}
	defer s.Close()
	<-start
	s.Macros(gomilter.CodeConn, "{client_addr}", clientIP)
	if _, err := s.Conn("mx.remote.example", gomilter.FamilyInet, 25, clientIP); err != nil {
		return false, err
	}
	s.Macros(gomilter.CodeMail, "{client_addr}", clientIP)
	if _, err := s.Mail("", nil); err != nil {
		return false, err
	}
	if _, err := s.Rcpt("owner@example.org", nil); err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(head), "\r\n") {
		k, v, _ := strings.Cut(line, ": ")
		if _, err := s.HeaderField(k, v); err != nil {
			return false, err
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		return false, err
	}
	mods, act, err := s.BodyReadFrom(bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	if act.Code != gomilter.ActContinue {
		return false, fmt.Errorf("action %c, want continue", act.Code)
	}
	for _, m := range mods {
		if m.Code == gomilter.ActAddHeader && m.HeaderName == "X-NDR-Explanation" {
			return true, nil
		}
	}
	return false, nil
}

// Twenty milter connections sending header fields of nearly 1 MiB each,
// thirty per message (the attack run's "many 1 MB headers", 1.46 GB before):
// Postfix expects no reply to a header field (the temporary failure of a
// header over 1 MiB comes at its end: milter/limits_test.go), so a client
// that sends on is cut off once its header passes 2 MiB, and serve stays
// under 512 MB and up.
func TestManyHugeHeaderFieldsStayUnder512MB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process with 600 MB of header fields")
	}
	const (
		conns, fields = 20, 30
		limitKB       = 512 * 1000 * 1000 / 1024
	)
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	c := startChild(t, childOptions{wait: addr, env: []string{"GOMEMLIMIT=" + unitEnvironment(t, "GOMEMLIMIT")}},
		"--listen", "inet:"+addr, "--data", t.TempDir(), "--domain", "example.org", "--metrics-listen", "")
	big := strings.Repeat("h", (1<<20)-64)
	var wg sync.WaitGroup
	cutOff := make([]bool, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
				ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader})
			s, err := cl.Session()
			if err != nil {
				return
			}
			defer s.Close()
			ip := fmt.Sprintf("203.0.113.%d", i+1)
			s.Macros(gomilter.CodeConn, "{client_addr}", ip)
			s.Conn("mx.remote.example", gomilter.FamilyInet, 25, ip)
			s.Macros(gomilter.CodeMail, "{client_addr}", ip)
			s.Mail("", nil)
			s.Rcpt("alice@example.org", nil)
			for f := range fields {
				if _, err := s.HeaderField(fmt.Sprintf("X-Big-%d", f), big); err != nil {
					cutOff[i] = true
					return
				}
			}
			// Writes may all have gone into socket buffers: the end of
			// the header finds the connection closed.
			if _, err := s.HeaderEnd(); err != nil {
				cutOff[i] = true
			}
		}()
	}
	wg.Wait()
	peak := c.status("VmHWM")
	t.Logf("%d connections x %d header fields of 1 MiB: serve's peak RSS %d kB", conns, fields, peak)
	if !c.running() {
		t.Fatalf("serve exited: %v", c.exitErr)
	}
	if peak >= limitKB {
		t.Errorf("serve's peak RSS %d kB, want under %d kB (512 MB)", peak, limitKB)
	}
	for i, ok := range cutOff {
		if !ok {
			t.Errorf("connection %d was not cut off during its 30 MiB header", i+1)
		}
	}
	mods, act := sendBounce(t, addr)
	if act.Code != gomilter.ActContinue || len(mods) == 0 {
		t.Errorf("a bounce after the flood: %c %+v", act.Code, mods)
	}
}
