package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog/postfixlogtest"
)

// listLog is a Postfix log of one message from list@example.org to n
// recipients (user1@remote.test...), an hour ago.
func listLog(queueID, messageID string, n int) string {
	ts := time.Now().Add(-time.Hour).Format("Jan _2 15:04:05")
	var b strings.Builder
	fmt.Fprintf(&b, "%s mx postfix/cleanup[1]: %s: message-id=<%s>\n", ts, queueID, messageID)
	fmt.Fprintf(&b, "%s mx postfix/qmgr[2]: %s: from=<list@example.org>, size=900, nrcpt=%d (queue active)\n", ts, queueID, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s mx postfix/smtp[3]: %s: to=<user%d@remote.test>, relay=mx.remote.test[192.0.2.1]:25, delay=0.2, dsn=2.0.0, status=sent (250 ok)\n", ts, queueID, i)
	}
	fmt.Fprintf(&b, "%s mx postfix/qmgr[2]: %s: removed\n", ts, queueID)
	return b.String()
}

// An import through the API is the import of the command line
// (postfixlog.Import): the same summary, capped recipients included, and
// the same writes: the recipients past a record's cap are kept as pairs.
func TestImportThroughTheAPIIsTheImportOfTheCommandLine(t *testing.T) {
	var log bytes.Buffer
	if _, err := postfixlogtest.Write(&log, postfixlogtest.Options{Messages: 3000, Seed: 9, End: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	log.WriteString(listLog("9F0000000A", "list.1@example.org", ledger.MaxRecipients+10))

	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.org"}}})
	resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", bytes.NewReader(log.Bytes()))
	var got postfixlog.Summary
	if err := json.Unmarshal([]byte(body), &got); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("import: %s %s (%v)", resp.Status, body, err)
	}
	if !strings.Contains(body, `"capped_messages":1,"capped_recipients":10`) {
		t.Errorf("the API's summary does not say what was capped: %s", body)
	}

	local, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, err := postfixlog.Import(t.Context(), local, bytes.NewReader(log.Bytes()), postfixlog.ImportOptions{
		Domains: []string{"example.org"}, Cutoff: time.Now().Add(-30 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got.New < 1000 || got.CappedRecipients != 10 {
		t.Errorf("through the API:\n %+v\nlocally:\n %+v\nwant the same, with over 1000 new and 10 recipients capped", got, want)
	}
	last := fmt.Sprintf("user%d@remote.test", ledger.MaxRecipients+10)
	for name, led := range map[string]ledger.Ledger{"the service's": ts.Ledger, "the local": local} {
		if ok, err := led.SentTo(t.Context(), "list@example.org", last); !ok || err != nil {
			t.Errorf("%s ledger: SentTo(list, %s) = %v, %v; want true (a recipient past the cap)", name, last, ok, err)
		}
		st, err := led.Stats(t.Context())
		if err != nil || st.Records != int64(want.New) {
			t.Errorf("%s ledger: %d records (%v), want %d", name, st.Records, err, want.New)
		}
	}
}

// onlyReader hides the type of its reader, so that a request has no
// Content-Length (chunked).
type onlyReader struct{ io.Reader }

// An import over the size limit is refused with 413 before it starts when
// the request says its length, and stopped at the limit when it does not:
// what came before the limit is imported, and the answer says so.
func TestImportOverTheSizeLimitIs413(t *testing.T) {
	const limit = 64 << 10
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{ImportMaxBytes: limit}})
	first := postfixLog("first.1@example.org", "1A0000000A")
	filler := strings.Repeat("Nov 29 21:14:24 mx sshd[9]: Connection closed by 192.0.2.9 port 22\n", 2*limit/60)
	log := first + filler + postfixLog("last.1@example.org", "1A0000000B")

	resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", strings.NewReader(log))
	if msg := errorBody(t, resp, body); resp.StatusCode != http.StatusRequestEntityTooLarge ||
		!strings.Contains(msg, fmt.Sprintf("over the limit of %d (http_import_max_bytes)", limit)) {
		t.Errorf("import with a Content-Length over the limit: %s %s", resp.Status, body)
	}
	if _, err := ts.Ledger.ByMessageID(t.Context(), "first.1@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("an import refused by its length wrote to the ledger: %v", err)
	}

	resp, body = do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", onlyReader{strings.NewReader(log)})
	if msg := errorBody(t, resp, body); resp.StatusCode != http.StatusRequestEntityTooLarge ||
		!strings.Contains(msg, fmt.Sprintf("over the limit of %d bytes (http_import_max_bytes): the import stopped there", limit)) ||
		!strings.Contains(msg, "1 messages imported (1 new, 0 updated)") {
		t.Errorf("import of a chunked body over the limit: %s %s", resp.Status, body)
	}
	if _, err := ts.Ledger.ByMessageID(t.Context(), "first.1@example.org"); err != nil {
		t.Errorf("the message before the limit was not imported: %v", err)
	}
	if _, err := ts.Ledger.ByMessageID(t.Context(), "last.1@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("the message past the limit was imported: %v", err)
	}

	// The limit is on the body as sent: the same log gzip-compressed fits.
	_, err := httpapi.NewClient(httpapi.AddrFile{URL: ts.URL}).Import(t.Context(), strings.NewReader(log), nil, false)
	if !errors.Is(err, httpapi.ErrImportLimit) || !strings.Contains(err.Error(), "413") {
		t.Errorf("Client.Import over the limit: %v; want ErrImportLimit, 413", err)
	}
	sum, err := httpapi.NewClient(httpapi.AddrFile{URL: ts.URL}).Import(t.Context(), bytes.NewReader(gzipped(log)), nil, false)
	if err != nil || sum.New != 1 || sum.Known != 1 {
		t.Errorf("Client.Import of the log gzipped: %+v, %v; want 1 new (the last), 1 known (the first)", sum, err)
	}
}

// gzipped is s gzip-compressed.
func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// An import that does not end in time (here: a client that stops sending)
// is stopped with 408 at the time limit, and the connection is not held.
func TestImportOverTheTimeLimitIs408(t *testing.T) {
	const limit = 300 * time.Millisecond
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{ImportTimeout: limit}})
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(postfixLog("slow.1@example.org", "2B0000000A"))) // then nothing, and no end
	start := time.Now()
	resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", pr)
	took := time.Since(start)
	if msg := errorBody(t, resp, body); resp.StatusCode != http.StatusRequestTimeout ||
		!strings.Contains(msg, "did not end within 300ms (http_import_timeout)") || !strings.Contains(msg, "after 5 lines") {
		t.Errorf("import of a body that stalls: %s %s", resp.Status, body)
	}
	if took > limit+5*time.Second {
		t.Errorf("the answer came %v after the request: want about the limit, %v", took, limit)
	}

	_, err := httpapi.NewClient(httpapi.AddrFile{URL: ts.URL}).Import(t.Context(), onlyReader{io.MultiReader(
		strings.NewReader(postfixLog("slow.2@example.org", "2B0000000B")), stall{})}, nil, false)
	if !errors.Is(err, httpapi.ErrImportLimit) || !strings.Contains(err.Error(), "408") {
		t.Errorf("Client.Import of a stalled log: %v; want ErrImportLimit, 408", err)
	}
}

// stall is a reader that never gives anything, for a few seconds at most.
type stall struct{}

func (stall) Read([]byte) (int, error) {
	time.Sleep(5 * time.Second)
	return 0, io.EOF
}
