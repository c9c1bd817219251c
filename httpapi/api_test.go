package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// errorBody decodes an error answer, failing unless it is {"error": "..."}.
func errorBody(t *testing.T, resp *http.Response, body string) string {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer of type %q, want JSON: %s", ct, body)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(body), &e); err != nil || len(e) != 1 || e["error"] == nil || e["error"] == "" {
		t.Errorf("error answer %q: want {\"error\": \"...\"}", body)
	}
	s, _ := e["error"].(string)
	return s
}

// The records POST /api/v1/explain answers are those of "explain --json",
// key for key (package explanation builds both), plus the backscatter
// verdict judged against the ledger.
func TestExplainAnswersTheRecordsOfExplainJSONWithTheVerdict(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.org"}}})
	put(t, ts.Ledger, "sent.1@example.org", "")
	for _, c := range []struct {
		messageID, verdict, evidence string
	}{
		{"sent.1@example.org", "no", "message-id"},
		{"never.sent@example.org", "yes", "message-id"},
	} {
		raw := bounce(c.messageID)
		resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain", "message/rfc822", strings.NewReader(raw))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("explain: %s %s", resp.Status, body)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 1 {
			t.Fatalf("explain: %v, %s; want an array of one record", err, body)
		}
		rep, _ := dsn.Parse([]byte(raw))
		want := explanation.Records("", rep, ts.Rules.Explain(rep))
		wb, _ := json.Marshal(want[0])
		var wm map[string]any
		json.Unmarshal(wb, &wm)
		wm["backscatter"], wm["backscatter_evidence"] = c.verdict, c.evidence
		if !reflect.DeepEqual(got[0], wm) {
			t.Errorf("%s: the API's record\n %v\nis not explain --json's with the verdict\n %v", c.messageID, got[0], wm)
		}
		if got[0]["owner"] != "sender" || got[0]["status"] != "5.1.1" {
			t.Errorf("the record does not say what the bounce says: %v", got[0])
		}
	}
}

func TestExplainWritesTheWordsInTheRequestedLanguage(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.org"}}})
	raw := bounce("sent.1@example.org")
	rep, _ := dsn.Parse([]byte(raw))
	for _, c := range []struct{ query, accept string }{{"?lang=de", ""}, {"", "de-DE, en;q=0.5"}} {
		resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain"+c.query, "message/rfc822", strings.NewReader(raw), "Accept-Language", c.accept)
		var got []struct{ Summary, Explanation, Fix, Reason, Owner string }
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil || len(got) != 1 {
			t.Fatalf("explain%s: %s %s", c.query, resp.Status, body)
		}
		want := ts.Rules.ExplainIn(language.German, rep)[0]
		if resp.Header.Get("Content-Language") != "de" || got[0].Summary != want.Summary || got[0].Explanation != want.Explanation ||
			got[0].Fix != want.Fix || !strings.HasPrefix(got[0].Explanation, "Die Nachricht") || got[0].Reason != string(want.Reason) {
			t.Errorf("explain%s, Accept-Language %q: Content-Language %q, %+v; want the German words of ExplainIn", c.query, c.accept,
				resp.Header.Get("Content-Language"), got[0])
		}
	}
}

func TestExplainVerdictWithoutItsLedger(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.net"}}})
	_, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain", "", strings.NewReader(bounce("x@example.org")))
	if !strings.Contains(body, `"backscatter":"unknown","backscatter_evidence":"not-our-domain"`) {
		t.Errorf("a bounce about another domain: %s", body)
	}
	// A ledger that fails: unknown, never yes (the milter's rule); the
	// explanation is still given.
	ts = newTestServer(t, httpapi.Config{})
	ts.Ledger.Close()
	resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain", "", strings.NewReader(bounce("x@example.org")))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"backscatter":"unknown","backscatter_evidence":"ledger-error"`) {
		t.Errorf("with the ledger down: %s %s", resp.Status, body)
	}
	// Not a bounce: no verdict.
	_, body = do(t, http.MethodPost, ts.URL+"/api/v1/explain", "", strings.NewReader("From: a@example.org\r\nSubject: hi\r\n\r\nhello\r\n"))
	if strings.Contains(body, "backscatter") || !strings.Contains(body, `"kind":"not-bounce"`) {
		t.Errorf("an ordinary message: %s", body)
	}
}

func TestExplainRefusesWhatIsNotAMessageOfTheRightSize(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{ParseCap: 4096}})
	big := bounce("big@example.org") + strings.Repeat("x", 4096)
	for _, c := range []struct {
		name, ct string
		body     *strings.Reader
		chunked  bool
		status   int
		says     string
	}{
		{"over the cap", "message/rfc822", strings.NewReader(big), false, http.StatusRequestEntityTooLarge, "over the limit of 4096"},
		{"over the cap, no length", "message/rfc822", strings.NewReader(big), true, http.StatusRequestEntityTooLarge, "limit of 4096"},
		{"empty", "message/rfc822", strings.NewReader(""), false, http.StatusBadRequest, "empty body"},
		{"JSON", "application/json", strings.NewReader(`{"message": "..."}`), false, http.StatusUnsupportedMediaType, "expected a raw message"},
		{"a form with a file", "multipart/form-data; boundary=x", strings.NewReader("--x--"), false, http.StatusUnsupportedMediaType, "expected a raw message"},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/explain", c.body)
		req.Header.Set("Content-Type", c.ct)
		if c.chunked {
			req.ContentLength = -1
			req.Body = io.NopCloser(struct{ io.Reader }{c.body})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %s %s; want %d", c.name, resp.Status, b.String(), c.status)
		}
		if msg := errorBody(t, resp, b.String()); !strings.Contains(msg, c.says) {
			t.Errorf("%s: error %q does not say %q", c.name, msg, c.says)
		}
	}
	// At the cap exactly: read.
	ok := bounce("ok@example.org")
	ok += strings.Repeat("y", 4096-len(ok))
	if resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain", "text/plain", strings.NewReader(ok)); resp.StatusCode != http.StatusOK {
		t.Errorf("a body of exactly the cap: %s %s", resp.Status, body)
	}
}

func TestCodeAnswersTheObjectOfCodeJSON(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	for _, q := range []string{"5.7.509", "550 5.7.26 Unauthenticated email from example.com is not accepted", "Diagnostic-Code: smtp; 550 5.1.1 no such user", "421"} {
		resp, body := do(t, http.MethodGet, ts.URL+"/api/v1/code?q="+url.QueryEscape(q), "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("code %q: %s %s", q, resp.Status, body)
		}
		var got explanation.CodeRecord
		json.Unmarshal([]byte(body), &got)
		cq, _ := explanation.ParseCodeQuery(q)
		if want := cq.Lookup(ts.Rules); got != want {
			t.Errorf("code %q:\n got  %+v\n want %+v", q, got, want)
		}
	}
	for _, q := range []string{"hello", "", "   ", "999 nope"} {
		resp, body := do(t, http.MethodGet, ts.URL+"/api/v1/code?q="+url.QueryEscape(q), "", nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("code %q: %s %s; want 400", q, resp.Status, body)
		}
		if msg := errorBody(t, resp, body); !strings.Contains(msg, "enhanced status code (5.7.509)") {
			t.Errorf("code %q: the error %q does not say what is expected", q, msg)
		}
	}
}

func TestLedgerRoutes(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.org"}}})
	put(t, ts.Ledger, "a/b.1@example.org", "4ABC1")
	for _, id := range []string{"a/b.1@example.org", "<A/B.1@Example.org>", "4ABC1"} {
		resp, body := do(t, http.MethodGet, ts.URL+"/api/v1/ledger/"+url.PathEscape(id), "", nil)
		var rec httpapi.LedgerRecord
		if err := json.Unmarshal([]byte(body), &rec); resp.StatusCode != http.StatusOK || err != nil ||
			!rec.Found || rec.MessageID != "a/b.1@example.org" || rec.QueueID != "4ABC1" || rec.Sender != "alice@example.org" {
			t.Errorf("lookup %q: %s %s", id, resp.Status, body)
		}
	}
	resp, body := do(t, http.MethodGet, ts.URL+"/api/v1/ledger/"+url.PathEscape("<nope@example.org>"), "", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(errorBody(t, resp, body), "is not in the ledger") {
		t.Errorf("lookup of an unknown id: %s %s", resp.Status, body)
	}

	resp, body = do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import?domain=example.org", "text/plain", strings.NewReader(postfixLog("imp.1@example.org", "5DEF2A3B4C")))
	var sum postfixlog.Summary
	if err := json.Unmarshal([]byte(body), &sum); resp.StatusCode != http.StatusOK || err != nil || sum.New != 1 || sum.Malformed != 1 || sum.Lines != 5 {
		t.Errorf("import: %s %s; want 1 new, 1 malformed line of 5", resp.Status, body)
	}
	// The same log again changes nothing; a dry run writes nothing.
	_, body = do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", strings.NewReader(postfixLog("imp.1@example.org", "5DEF2A3B4C")))
	if !strings.Contains(body, `"new":0,"updated":0,"already_known":1`) {
		t.Errorf("import again: %s", body)
	}
	_, body = do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import?dry_run=true", "text/plain", strings.NewReader(postfixLog("dry.1@example.org", "6AAA3B4C5D")))
	if !strings.Contains(body, `"dry_run":true`) {
		t.Errorf("dry run: %s", body)
	}
	if resp, _ := do(t, http.MethodGet, ts.URL+"/api/v1/ledger/dry.1@example.org", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a dry run wrote to the ledger: %s", resp.Status)
	}
	// Another domain's mail is not imported.
	_, body = do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import?domain=example.net", "text/plain", strings.NewReader(postfixLog("other.1@example.org", "7BBB4C5D6E")))
	if !strings.Contains(body, `"new":0`) || !strings.Contains(body, `"skipped_not_leaving":1`) {
		t.Errorf("import of another domain's mail: %s", body)
	}

	resp, body = do(t, http.MethodGet, ts.URL+"/api/v1/ledger/stats", "", nil)
	var st httpapi.LedgerStats
	if err := json.Unmarshal([]byte(body), &st); resp.StatusCode != http.StatusOK || err != nil || st.Records != 2 || !strings.HasPrefix(st.Backend, "bbolt ") {
		t.Errorf("stats: %s %s; want 2 records", resp.Status, body)
	}

	// The ledger down: 503, for every ledger route.
	ts.Ledger.Close()
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/ledger/4ABC1"}, {http.MethodGet, "/api/v1/ledger/stats"}, {http.MethodPost, "/api/v1/ledger/import"},
	} {
		resp, body := do(t, c.method, ts.URL+c.path, "text/plain", strings.NewReader(postfixLog("down.1@example.org", "8CCC5D6E7F")))
		if c.path == "/api/v1/ledger/import" {
			// The log is read; each write fails and is counted.
			if !strings.Contains(body, `"errors":1`) {
				t.Errorf("import with the ledger down: %s %s", resp.Status, body)
			}
			continue
		}
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(errorBody(t, resp, body), "the ledger cannot be read") {
			t.Errorf("%s %s with the ledger down: %s %s", c.method, c.path, resp.Status, body)
		}
	}
}

func TestRoutesAnswerJSONErrorsWithTheirStatus(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/api/v1/explain", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/api/v1/ledger/x", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPost, "/api/v1/code", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/api/v1/nothing", http.StatusNotFound, ""},
		{http.MethodGet, "/api/v2/explain", http.StatusNotFound, ""},
	} {
		resp, body := do(t, c.method, ts.URL+c.path, "", nil)
		if resp.StatusCode != c.status || resp.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %s, Allow %q; want %d, Allow %q", c.method, c.path, resp.Status, resp.Header.Get("Allow"), c.status, c.allow)
		}
		errorBody(t, resp, body)
	}
}

func TestLanguageIsNegotiatedAndEnglishIsTheFallback(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	for _, c := range []struct{ query, accept, want, summary string }{
		{"", "", "en", "address does not exist"},
		{"?lang=en", "de", "en", "address does not exist"},
		{"?lang=xx-unknown", "", "en", "address does not exist"},
		{"?lang=!!", "de", "de", "Adresse existiert nicht"},
		{"", "de-CH, fr;q=0.8", "de", "Adresse existiert nicht"},
		{"?lang=de", "en", "de", "Adresse existiert nicht"},
		{"", "en-GB", "en", "address does not exist"},
	} {
		resp, body := do(t, http.MethodGet, ts.URL+"/api/v1/code"+c.query+map[bool]string{true: "&", false: "?"}[c.query != ""]+"q=5.1.1", "", nil, "Accept-Language", c.accept)
		var rec struct{ Summary, Explanation, Fix string }
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Language") != c.want || !strings.Contains(resp.Header.Get("Vary"), "Accept-Language") ||
			json.Unmarshal([]byte(body), &rec) != nil || rec.Summary != c.summary {
			t.Errorf("lang %q, Accept-Language %q: %s, Content-Language %q, Vary %q: %s; want %s, summary %q", c.query, c.accept, resp.Status,
				resp.Header.Get("Content-Language"), resp.Header.Get("Vary"), body, c.want, c.summary)
		}
	}
}

// Every answer forbids loading from elsewhere; a browser's unsafe request
// from another origin is refused.
func TestSecurityHeadersAndCrossOriginRequests(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	for _, path := range []string{"/", "/api/v1/code?q=550", "/static/page.css", "/healthz", "/nothing"} {
		resp, _ := do(t, http.MethodGet, ts.URL+path, "", nil)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self'") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: Content-Security-Policy %q, nosniff %q", path, csp, resp.Header.Get("X-Content-Type-Options"))
		}
	}
	resp, _ := do(t, http.MethodPost, ts.URL+"/api/v1/ledger/import", "text/plain", strings.NewReader(postfixLog("csrf@example.org", "9DDD6E7F8A")),
		"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST to the import: %s; want 403", resp.Status)
	}
	if resp, _ := do(t, http.MethodGet, ts.URL+"/api/v1/ledger/csrf@example.org", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the cross-site import wrote to the ledger: %s", resp.Status)
	}
	resp, _ = do(t, http.MethodPost, ts.URL+"/api/v1/explain", "text/plain", strings.NewReader(bounce("x@example.org")), "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a same-origin POST: %s", resp.Status)
	}
}

func TestHealthz(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	if resp, body := do(t, http.MethodGet, ts.URL+"/healthz", "", nil); resp.StatusCode != http.StatusOK || body != "ok\n" {
		t.Errorf("healthz: %s %q", resp.Status, body)
	}
	ts.Ledger.Close()
	if resp, body := do(t, http.MethodGet, ts.URL+"/healthz", "", nil); resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(body, "degraded: ledger:") {
		t.Errorf("healthz with the ledger down: %s %q", resp.Status, body)
	}
}
