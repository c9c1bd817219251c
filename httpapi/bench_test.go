package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/httpapi"
)

// bigBounce is a bounce of size bytes: the report, then the whole
// original message (a long text), as Postfix returns it with
// bounce_size_limit raised.
func bigBounce(size int) string {
	head := strings.Replace(bounce("big.1@example.org"), "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n", "--B\r\nContent-Type: message/rfc822\r\n\r\n", 1)
	head = strings.TrimSuffix(head, "\r\n--B--\r\n")
	var b strings.Builder
	b.WriteString(head)
	line := "The quarterly figures are attached below, with the notes of the team. 0123456789\r\n"
	const tail = "\r\n--B--\r\n"
	for b.Len()+len(line)+len(tail) <= size {
		b.WriteString(line)
	}
	b.WriteString(strings.Repeat("x", max(0, size-b.Len()-len(tail))))
	b.WriteString(tail)
	return b.String()
}

// explainLikeTheCLI is what "ndrmilter explain --json" does with one message
// once it is read: parse, explain, write the records.
func explainLikeTheCLI(b *testing.B, ts *testServer, raw []byte) {
	rep, _ := dsn.Parse(raw)
	enc := json.NewEncoder(io.Discard)
	for _, rd := range ts.Rules.Explain(rep) {
		if err := enc.Encode(explanation.NewRecord("-", rep, rd)); err != nil {
			b.Fatal(err)
		}
	}
}

// pageForm is the helpdesk page's form with raw pasted in it.
func pageForm(raw []byte) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("text", string(raw))
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// A pasted 1 MB bounce: the API and the page against explain itself plus
// the HTTP round trip of the same body (a handler that only reads it), in
// the same run, one after the other in each iteration so that the busy
// machine weighs on all alike. Reported: the median time of each, and the
// ratios api/(explain+roundtrip) and page/(explain+roundtrip), which the
// issue wants near 1, and page/(explain+form-roundtrip), the page against
// the round trip of its own form (multipart/form-data read as net/http
// reads one); what is left is the verdict's ledger lookups and the JSON or
// the HTML.
func BenchmarkExplain1MBBounceOverHTTPAgainstExplain(b *testing.B) {
	ts := newTestServer(b, httpapi.Config{Settings: httpapi.Settings{Domains: []string{"example.org"}}})
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
		buf.ReadFrom(r.Body)
		w.Write([]byte("[]\n"))
	}))
	defer echo.Close()
	// The round trip of the page's form: the form read as net/http reads
	// a posted form, each field into memory.
	echoForm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			io.ReadAll(p)
		}
		w.Write([]byte("<!doctype html>\n"))
	}))
	defer echoForm.Close()
	raw := []byte(bigBounce(1 << 20))
	form, formType := pageForm(raw)
	// As curl sends a file: in large writes.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, WriteBufferSize: 256 << 10}}
	post := func(url, ct string, body []byte) {
		resp, err := client.Post(url, ct, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n == 0 {
			b.Fatalf("%s: %s", url, resp.Status)
		}
	}
	var cli, trip, formTrip, api, page []time.Duration
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		explainLikeTheCLI(b, ts, raw)
		t1 := time.Now()
		post(echo.URL, "message/rfc822", raw)
		t2 := time.Now()
		post(ts.URL+"/api/v1/explain", "message/rfc822", raw)
		t3 := time.Now()
		post(ts.URL+"/", formType, form)
		t4 := time.Now()
		post(echoForm.URL, formType, form)
		t5 := time.Now()
		cli, trip, formTrip = append(cli, t1.Sub(t0)), append(trip, t2.Sub(t1)), append(formTrip, t5.Sub(t4))
		api, page = append(api, t3.Sub(t2)), append(page, t4.Sub(t3))
	}
	// Medians: the machine is shared, and a spike in one step of one
	// iteration says nothing of the code.
	mc, mt, mf, ma, mp := median(cli), median(trip), median(formTrip), median(api), median(page)
	b.ReportMetric(float64(mc.Nanoseconds()), "explain-ns/op")
	b.ReportMetric(float64(mt.Nanoseconds()), "roundtrip-ns/op")
	b.ReportMetric(float64(mf.Nanoseconds()), "form-roundtrip-ns/op")
	b.ReportMetric(float64(ma.Nanoseconds()), "api-ns/op")
	b.ReportMetric(float64(mp.Nanoseconds()), "page-ns/op")
	b.ReportMetric(float64(ma)/float64(mc+mt), "api/(explain+roundtrip)")
	b.ReportMetric(float64(mp)/float64(mc+mt), "page/(explain+roundtrip)")
	b.ReportMetric(float64(mp)/float64(mc+mf), "page/(explain+form-roundtrip)")
}

// median is the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// A 1 MB bounce is read whole with the default cap (2 MiB); a body over
// the cap is refused with 413, by the API and by the page.
func TestAOneMegabyteBounceIsReadAndOverTheCapIsRefused(t *testing.T) {
	ts := newTestServer(t, httpapi.Config{})
	raw := bigBounce(1 << 20)
	resp, body := do(t, http.MethodPost, ts.URL+"/api/v1/explain", "message/rfc822", strings.NewReader(raw))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"5.1.1"`) || !strings.Contains(body, `"original_message_id":"big.1@example.org"`) {
		t.Errorf("1 MB bounce: %s %.300s", resp.Status, body)
	}
	form, ct := pageForm([]byte(raw))
	resp, body = do(t, http.MethodPost, ts.URL+"/", ct, bytes.NewReader(form))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "To nobody@remote.example") {
		t.Errorf("1 MB bounce pasted in the page: %s", resp.Status)
	}
	over := bigBounce(httpapi.DefaultParseCap + 1)
	resp, body = do(t, http.MethodPost, ts.URL+"/api/v1/explain", "message/rfc822", strings.NewReader(over))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of %d bytes, over the cap: %s %s", len(over), resp.Status, body)
	}
	form, ct = pageForm([]byte(over))
	resp, body = do(t, http.MethodPost, ts.URL+"/", ct, bytes.NewReader(form))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, fmt.Sprintf("larger than %d bytes", httpapi.DefaultParseCap)) {
		t.Errorf("a pasted text over the cap: %s", resp.Status)
	}
}
