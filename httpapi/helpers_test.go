package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// bounce is a Postfix bounce (RFC 3464) of a message from alice@example.org
// with the Message-ID messageID, to a recipient that does not exist.
func bounce(messageID string) string {
	return "From: MAILER-DAEMON@mx.remote.example\r\nTo: alice@example.org\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
		"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.remote.example\r\n\r\n" +
		"Final-Recipient: rfc822; nobody@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n" +
		"Remote-MTA: dns; mx.remote.example\r\nDiagnostic-Code: smtp; 550 5.1.1 <nobody@remote.example>: Recipient address rejected: User unknown\r\n\r\n" +
		"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: alice@example.org\r\nTo: nobody@remote.example\r\n" +
		"Message-ID: <" + messageID + ">\r\nSubject: Quarterly figures\r\n\r\n--B--\r\n"
}

// testServer is a Server on a real bbolt ledger, served on loopback.
type testServer struct {
	*httpapi.Server
	URL    string
	Ledger ledger.Ledger
	Rules  *rules.Engine
}

// newTestServer starts a Server on a fresh bbolt ledger; cfg's Ledger and
// Settings.Rules are filled in when empty.
func newTestServer(t testing.TB, cfg httpapi.Config) *testServer {
	t.Helper()
	eng, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settings.Rules == nil {
		cfg.Settings.Rules = eng
	}
	if cfg.Ledger == nil {
		led, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { led.Close() })
		cfg.Ledger = led
	}
	s := httpapi.New(cfg)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &testServer{Server: s, URL: hs.URL, Ledger: cfg.Ledger, Rules: cfg.Settings.Rules}
}

// do sends a request and returns the answer with its body read.
func do(t testing.TB, method, url, contentType string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// put records a message sent by alice@example.org.
func put(t testing.TB, led ledger.Ledger, messageID, queueID string) {
	t.Helper()
	err := led.Put(t.Context(), ledger.Record{MessageID: messageID, QueueID: queueID, Sender: "alice@example.org",
		Recipients: []string{"someone@remote.example"}, Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

// postfixLog is a Postfix log of one message that left.
func postfixLog(messageID, queueID string) string {
	ts := time.Now().Add(-time.Hour).Format("Jan _2 15:04:05")
	return strings.Join([]string{
		fmt.Sprintf("%s mx postfix/cleanup[1]: %s: message-id=<%s>", ts, queueID, messageID),
		fmt.Sprintf("%s mx postfix/qmgr[2]: %s: from=<carol@example.org>, size=900, nrcpt=1 (queue active)", ts, queueID),
		fmt.Sprintf("%s mx postfix/smtp[3]: %s: to=<dave@remote.test>, relay=mx.remote.test[192.0.2.1]:25, delay=0.2, dsn=2.0.0, status=sent (250 ok)", ts, queueID),
		fmt.Sprintf("%s mx postfix/qmgr[2]: %s: removed", ts, queueID),
		"not a log line",
	}, "\n") + "\n"
}
