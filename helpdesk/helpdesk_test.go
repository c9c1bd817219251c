package helpdesk_test

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"testing/fstest"

	"fmt"
	"go.yaml.in/yaml/v3"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// bounce is a Postfix bounce (RFC 3464) for a message from
// alice@example.org to an address that does not exist.
func bounce(messageID string) string { return bounceOf(messageID, "Quarterly figures") }

// hostileBounce is bounce with a subject that is HTML.
func hostileBounce(messageID string) string {
	return bounceOf(messageID, "<script>alert(1)</script> figures")
}

func bounceOf(messageID, subject string) string {
	return "From: MAILER-DAEMON@mx.remote.example\r\nTo: alice@example.org\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
		"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.remote.example\r\n\r\n" +
		"Final-Recipient: rfc822; nobody@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n" +
		"Remote-MTA: dns; mx.remote.example\r\nDiagnostic-Code: smtp; 550 5.1.1 <nobody@remote.example>: Recipient address rejected: User unknown\r\n\r\n" +
		"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: alice@example.org\r\nTo: nobody@remote.example\r\n" +
		"Message-ID: <" + messageID + ">\r\nSubject: " + subject + "\r\n\r\n--B--\r\n"
}

// page serves the helpdesk page (through httpapi, its real backend) on a
// fresh bbolt ledger holding one message, sent.1@example.org.
func page(t *testing.T, cat *catalog.Catalog, parseCap int) string {
	t.Helper()
	eng, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	led, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	err = led.Put(t.Context(), ledger.Record{MessageID: "sent.1@example.org", QueueID: "4QUEUE1", Sender: "alice@example.org",
		Recipients: []string{"someone@remote.example"}, Time: time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	s := httpapi.New(httpapi.Config{Settings: httpapi.Settings{Rules: eng, Domains: []string{"example.org"}, ParseCap: parseCap},
		Ledger: led, Catalog: cat, Retention: 10 * 365 * 24 * time.Hour})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// post submits the explain form as the page does (multipart/form-data).
func post(t *testing.T, base, text string, file []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("text", text)
	fw, _ := mw.CreateFormFile("file", "bounce.eml")
	fw.Write(file)
	mw.Close()
	resp, err := http.Post(base+"/", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// acting is the step of the owner graphic marked as the one who must act.
var acting = regexp.MustCompile(`<li class="owner acting" aria-current="true">\s*<span class="who">([^<]*)</span>`)

func TestPageExplainsAPastedBounce(t *testing.T) {
	base := page(t, nil, 0)
	status, body := post(t, base, hostileBounce("never.sent@example.org"), nil)
	if status != http.StatusOK {
		t.Fatalf("POST /: %d\n%s", status, body)
	}
	for _, want := range []string{
		`<html lang="en"`,
		"This is a bounce.",
		"<h3>To nobody@remote.example</h3>",
		"The message to nobody@remote.example was refused by mx.remote.example because the address does not exist there",
		"Check the address for typos, and confirm it with the recipient by other means",
		"You, the sender, can fix this.",
		`<div class="verdict yes">`, "Backscatter: this bounce is about a message that never left this server.",
		"<dd>5.1.1 (permanent)</dd>", "<dd>mx.remote.example</dd>", "<dd>ms-5.1.1</dd>",
		"&lt;script&gt;alert(1)&lt;/script&gt; figures", // the bounce's text, escaped
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if m := acting.FindAllStringSubmatch(body, -1); len(m) != 1 || m[0][1] != "Sender" {
		t.Errorf("owner graphic: the acting steps are %v; want Sender alone", m)
	}
	if strings.Contains(body, "<script>alert") {
		t.Errorf("text of the bounce is not escaped")
	}
	// A bounce of a message that left here: not backscatter.
	_, body = post(t, base, bounce("sent.1@example.org"), nil)
	if !strings.Contains(body, `<div class="verdict no">`) || !strings.Contains(body, "Found out from the Message-ID") {
		t.Errorf("a bounce of mail sent here is not judged so")
	}
	// The same bounce as a dropped or chosen file.
	status, body = post(t, base, "", []byte(bounce("sent.1@example.org")))
	if status != http.StatusOK || !strings.Contains(body, "To nobody@remote.example") {
		t.Errorf("the bounce as a file: %d", status)
	}
}

func TestPageExplainsACodeOrAReplyLine(t *testing.T) {
	base := page(t, nil, 0)
	for _, c := range []struct{ text, step, says string }{
		{"5.7.509", "Your email admin", "DMARC"},
		{"  550 5.7.124 Sender not in allowed-senders list  ", "Recipient&#39;s side", "the owner of the group"},
		{"552 5.2.2 Mailbox full", "Recipient&#39;s side", "the recipient in person"},
	} {
		status, body := post(t, base, c.text, nil)
		if status != http.StatusOK || !strings.Contains(body, "<h3>Code "+strings.TrimSpace(c.text)+"</h3>") || !strings.Contains(body, c.says) {
			t.Errorf("code %q: %d\n%s", c.text, status, body)
		}
		if m := acting.FindAllStringSubmatch(body, -1); len(m) != 1 || m[0][1] != c.step {
			t.Errorf("code %q: acting %v; want %s", c.text, m, c.step)
		}
	}
}

func TestPageSaysWhatIsWrong(t *testing.T) {
	base := page(t, nil, 4096)
	for _, c := range []struct {
		text   string
		file   []byte
		status int
		says   string
	}{
		{"", nil, http.StatusBadRequest, "Paste a bounce or a code, or choose a file"},
		{"   \n ", nil, http.StatusBadRequest, "Paste a bounce or a code"},
		{strings.Repeat("x", 5000), nil, http.StatusRequestEntityTooLarge, "larger than 4096 bytes"},
		{"", bytes.Repeat([]byte("y"), 5000), http.StatusRequestEntityTooLarge, "larger than 4096 bytes"},
	} {
		status, body := post(t, base, c.text, c.file)
		if status != c.status || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, c.says) {
			t.Errorf("text of %d bytes, file of %d: %d; want %d and %q", len(c.text), len(c.file), status, c.status, c.says)
		}
	}
	// Plain text that is not a message is still read, as a message of no kind.
	status, body := post(t, base, "hello,\nhow are you?", nil)
	if status != http.StatusOK || !strings.Contains(body, "This does not look like a bounce.") {
		t.Errorf("plain text: %d", status)
	}
}

func TestPageLooksUpAMessage(t *testing.T) {
	base := page(t, nil, 0)
	status, body := get(t, base+"/lookup?id="+url.QueryEscape("<sent.1@example.org>"))
	if status != http.StatusOK || !strings.Contains(body, "This message left through this server.") ||
		!strings.Contains(body, "<dd>4QUEUE1</dd>") || !strings.Contains(body, `datetime="2026-11-30T09:15:00Z"`) {
		t.Errorf("lookup of a sent message: %d\n%s", status, body)
	}
	status, body = get(t, base+"/lookup?id=4QUEUE1")
	if status != http.StatusOK || !strings.Contains(body, "<dd>sent.1@example.org</dd>") {
		t.Errorf("lookup by queue id: %d", status)
	}
	status, body = get(t, base+"/lookup?id=nope@example.org")
	if status != http.StatusNotFound || !strings.Contains(body, "nope@example.org is not in the record of sent mail") {
		t.Errorf("lookup of an unknown message: %d", status)
	}
	status, body = get(t, base+"/lookup?id=")
	if status != http.StatusBadRequest || !strings.Contains(body, "Give a Message-ID or a queue id.") {
		t.Errorf("lookup of nothing: %d", status)
	}
}

// The form works without JavaScript and every field has a label; the page
// loads nothing from elsewhere.
func TestPageIsAPlainAccessibleForm(t *testing.T) {
	base := page(t, nil, 0)
	_, body := get(t, base+"/")
	for _, want := range []string{
		`<form method="post" action="/#result" enctype="multipart/form-data">`,
		`<form method="get" action="/lookup#result">`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<button type="submit">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, m := range regexp.MustCompile(`<(?:input|textarea)[^>]* id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if !strings.Contains(body, `<label for="`+m[1]+`">`) {
			t.Errorf("the field %s has no label", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href|action)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		if !strings.HasPrefix(m[1], "/") && !strings.HasPrefix(m[1], "#") {
			t.Errorf("the page refers to %q, outside its own origin", m[1])
		}
	}
	for _, asset := range []string{"/static/page.css", "/static/drop.js"} {
		if status, b := get(t, base+asset); status != http.StatusOK || len(b) < 100 || strings.Contains(b, "http://") || strings.Contains(b, "https://") {
			t.Errorf("%s: %d, %d bytes, or it loads from elsewhere", asset, status, len(b))
		}
	}
}

// markedCatalog is the built-in catalog with every text replaced by its id
// in brackets (and its placeholders), so that a test sees where the page's
// words come from.
func markedCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	en := catalog.Default()
	var b strings.Builder
	ph := regexp.MustCompile(`\{[a-z_]+\}`)
	raw, err := os.ReadFile(filepath.Join("..", "catalog", "messages", "en.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	if err := yaml.Unmarshal(raw, &texts); err != nil {
		t.Fatal(err)
	}
	for _, id := range en.IDs() {
		fmt.Fprintf(&b, "%s: %q\n", id, "⟦"+id+"⟧"+strings.Join(ph.FindAllString(texts[id], -1), " "))
	}
	c, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: []byte(b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every word the page writes comes from the catalog: with every text
// replaced by a marker, what is left between the tags is the bounce's own
// text, or punctuation.
func TestEveryWordOfThePageComesFromTheCatalog(t *testing.T) {
	base := page(t, markedCatalog(t), 4096)
	var pages []string
	add := func(_ int, body string) { pages = append(pages, body) }
	add(get(t, base+"/"))
	add(post(t, base, bounce("sent.1@example.org"), nil))
	add(post(t, base, hostileBounce("never@example.org"), nil))
	add(post(t, base, "5.7.124", nil))
	add(post(t, base, "", nil))
	add(post(t, base, strings.Repeat("z", 5000), nil))
	add(get(t, base+"/lookup?id=sent.1@example.org"))
	add(get(t, base+"/lookup?id=nope@example.org"))
	add(get(t, base+"/lookup"))
	add(get(t, base+"/no-such-page"))
	// What the bounce and the ledger say, which the page shows as they are.
	data := []string{"nobody@remote.example", "mx.remote.example", "userunknown", "ms-5.1.1", "failed", "rfc3464",
		"550 5.1.1 <nobody@remote.example>: Recipient address rejected: User unknown", "sent.1@example.org", "never@example.org",
		"alice@example.org", "<script>alert(1)</script> figures", "4QUEUE1", "2026-11-30 09:15:00 UTC", "nope@example.org",
		"5.1.1", "5.7.124", "ms-5.7.124", "someone@remote.example", "4096", // the parse cap, in the error
		"Quarterly figures", bounce("sent.1@example.org"), hostileBounce("never@example.org")} // the pasted text, shown again
	// The explanations and fixes come from the rules, as in the API.
	for _, q := range []string{"/api/v1/code?q=5.7.124"} {
		_, body := get(t, base+q)
		data = append(data, jsonStrings(t, body)...)
	}
	for _, raw := range []string{bounce("sent.1@example.org"), hostileBounce("never@example.org")} {
		resp, err := http.Post(base+"/api/v1/explain", "message/rfc822", strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		data = append(data, jsonStrings(t, string(b))...)
	}
	// Longest first, so that a value inside another is not cut out of it.
	sort.Slice(data, func(i, j int) bool { return len(data[i]) > len(data[j]) })
	text := regexp.MustCompile(`>([^<]*)<`)
	attr := regexp.MustCompile(`(?:aria-label|title|alt|placeholder|data-dropped)="([^"]*)"`)
	script := regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>`)
	for _, p := range pages {
		p = script.ReplaceAllString(p, "")
		var pieces []string
		for _, m := range text.FindAllStringSubmatch(p, -1) {
			pieces = append(pieces, m[1])
		}
		for _, m := range attr.FindAllStringSubmatch(p, -1) {
			pieces = append(pieces, m[1])
		}
		if !strings.Contains(p, "⟦") {
			t.Errorf("a page without a word from the catalog:\n%s", p)
		}
		for _, piece := range pieces {
			s := html.UnescapeString(piece)
			s = regexp.MustCompile(`⟦[^⟧]*⟧`).ReplaceAllString(s, "")
			for _, d := range data {
				s = strings.ReplaceAll(s, d, "")
			}
			if regexp.MustCompile(`^[\s()\-:,.]*$`).MatchString(s) {
				continue
			}
			t.Errorf("text not from the catalog: %q", strings.TrimSpace(s))
		}
	}
}

// jsonStrings are the string values of a JSON object or array of objects.
func jsonStrings(t *testing.T, body string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if v != "" {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// The ids the page makes from a vocabulary (a kind, an owner, a verdict,
// an evidence) are all in the catalog, whatever value comes.
func TestCatalogHasATextForEveryValueOfTheVocabularies(t *testing.T) {
	c := catalog.Default()
	var ids []string
	for _, k := range []dsn.Kind{dsn.KindBounce, dsn.KindDelay, dsn.KindDelivered, dsn.KindRelayed, dsn.KindExpanded,
		dsn.KindAutoreply, dsn.KindFeedback, dsn.KindReceipt, dsn.KindNone} {
		ids = append(ids, "kind."+string(k))
	}
	for _, o := range rules.Owners() {
		ids = append(ids, "owner."+string(o))
	}
	ids = append(ids, "owner.nofailure")
	for _, s := range []string{"sender", "sender-admin", "recipient"} {
		ids = append(ids, "owner.step."+s, "owner.step."+s+"_note")
	}
	ids = append(ids, "owner.step.recipient-admin_note", "owner.step.group-owner_note", "owner.step.recipient-self_note")
	for _, v := range []backscatter.Verdict{backscatter.Yes, backscatter.No, backscatter.Unknown} {
		ids = append(ids, "verdict."+string(v))
	}
	for _, e := range []backscatter.Evidence{backscatter.EvidenceMessageID, backscatter.EvidenceQueueID, backscatter.EvidenceRecipientMatch,
		backscatter.EvidenceNone, backscatter.EvidenceLedgerError, backscatter.EvidenceNotOurDomain, backscatter.EvidenceNoLedger} {
		ids = append(ids, "evidence."+string(e))
	}
	for _, id := range ids {
		if !c.Has(id) {
			t.Errorf("the catalog has no %s", id)
		}
	}
}

// A bounce copied out of a mail program without its header is read from
// its text; text that is no bounce stays no bounce.
func TestPageReadsTheTextOfABounceWithoutItsHeader(t *testing.T) {
	base := page(t, nil, 0)
	text := "Delivery has failed to these recipients or groups:\n\nmarta@fabrikam.example\n" +
		"Your message wasn't delivered due to a permission or security issue.\n\n" +
		"Diagnostic information for administrators:\n\nGenerating server: mail.example.org\n\nmarta@fabrikam.example\n" +
		"mx.fabrikam.example #<mx.fabrikam.example #5.7.1 smtp;530 5.7.1 Client was not authenticated> #SMTP#\n"
	status, body := post(t, base, "\n"+text, nil)
	if status != http.StatusOK || !strings.Contains(body, "<h3>To marta@fabrikam.example</h3>") || !strings.Contains(body, "This is a bounce.") {
		t.Errorf("the text of a bounce: %d\n%s", status, body)
	}
	if m := acting.FindAllStringSubmatch(body, -1); len(m) != 1 || m[0][1] != "Your email admin" {
		t.Errorf("the text of a bounce: acting %v; want Your email admin", m)
	}
	_, body = post(t, base, "Hi Marta,\nthe figures are attached.\nBest, Alice\n", nil)
	if !strings.Contains(body, "This does not look like a bounce.") {
		t.Errorf("a letter read as a bounce")
	}
}

func TestPageInGermanExplainsInGerman(t *testing.T) {
	base := page(t, nil, 0)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("text", hostileBounce("never.sent@example.org"))
	mw.WriteField("lang", "de")
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, base+"/", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Accept-Language", "en")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	page := string(b)
	for _, want := range []string{`<html lang="de"`, "Dies ist eine Unzustellbarkeitsnachricht.", "<h3>An nobody@remote.example</h3>",
		"Die Nachricht an nobody@remote.example wurde von mx.remote.example abgelehnt", "Prüfen Sie die Adresse auf Tippfehler und bestätigen Sie sie mit dem Empfänger auf anderem Weg",
		"Sie als Absender können das beheben.", "<dd>5.1.1 (dauerhaft)</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the German page lacks %q", want)
		}
	}
	if m := acting.FindAllStringSubmatch(page, -1); len(m) != 1 || m[0][1] != "Absender" {
		t.Errorf("owner graphic: the acting steps are %v; want Absender alone", m)
	}
	for _, english := range []string{"was refused", "Check the address", "This is a bounce"} {
		if strings.Contains(page, english) {
			t.Errorf("the German page says %q", english)
		}
	}
}
