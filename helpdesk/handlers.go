package helpdesk

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/message"
)

// formOverhead is what a form may carry besides the message: the other
// fields and the multipart framing.
const formOverhead = 64 << 10

// maxEcho is the largest pasted text the page shows again in its form.
const maxEcho = 256 << 10

// errTooLarge is readForm's error for a message over the limit.
var errTooLarge = errors.New("too large")

// form is what the explain form sent.
type form struct {
	text []byte
	file []byte
	lang string
}

// readForm reads the explain form: multipart/form-data (the page's form,
// with its file) or application/x-www-form-urlencoded, each field at most
// limit bytes. Files are read into memory, never to disk.
func readForm(w http.ResponseWriter, r *http.Request, limit int) (form, error) {
	var f form
	f.lang = r.URL.Query().Get("lang")
	if r.ContentLength > int64(limit+formOverhead) {
		return f, errTooLarge
	}
	r.Body = http.MaxBytesReader(w, r.Body, int64(limit+formOverhead))
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		if err := r.ParseForm(); err != nil {
			return f, tooLarge(err)
		}
		f.text = []byte(r.PostForm.Get("text"))
		if len(f.text) > limit {
			return f, errTooLarge
		}
		return f, nil
	}
	if params["boundary"] == "" {
		return f, errors.New("multipart/form-data without a boundary")
	}
	// The multipart reader reads 4 KB at a time: through a larger buffer, a
	// pasted bounce of a megabyte takes a few reads of the connection, not
	// hundreds.
	mr := multipart.NewReader(bufio.NewReaderSize(r.Body, 256<<10), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return f, tooLarge(err)
		}
		switch part.FormName() {
		case "text", "file", "lang":
		default:
			continue
		}
		b, err := readPart(part, limit, r.ContentLength)
		if err != nil {
			return f, tooLarge(err)
		}
		if len(b) > limit {
			return f, errTooLarge
		}
		switch part.FormName() {
		case "text":
			f.text = b
		case "file":
			f.file = b
		case "lang":
			f.lang = string(b)
		}
	}
}

// readPart reads a form field of at most limit bytes (limit+1 when it is
// longer): a short one in a small buffer, a long one in one buffer as large
// as the request says it is, so that a pasted megabyte is not copied from
// buffer to ever larger buffer.
func readPart(part io.Reader, limit int, contentLength int64) ([]byte, error) {
	lr := io.LimitReader(part, int64(limit)+1)
	first := make([]byte, 32<<10)
	n, err := io.ReadFull(lr, first)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return first[:n], nil
	case err != nil:
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(int(min(contentLength, int64(limit)+1)) + bytes.MinRead)
	b.Write(first)
	_, err = b.ReadFrom(lr)
	return b.Bytes(), err
}

// tooLarge turns the error of a body over its cap into errTooLarge.
func tooLarge(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errTooLarge
	}
	return err
}

// handleExplain is POST /: explain what the form sent, a code on one line
// or a message.
func (p *Page) handleExplain(w http.ResponseWriter, r *http.Request) {
	limit := p.backend.Limit()
	f, err := readForm(w, r, limit)
	tag, lp := p.language(r, f.lang)
	t := p.textFunc(tag)
	d := data{LangParam: lp}
	if len(f.text) <= maxEcho {
		d.Text = string(f.text)
	}
	switch {
	case errors.Is(err, errTooLarge):
		d.Error = t("error.too_large", "limit", strconv.Itoa(limit))
		p.render(w, r, tag, http.StatusRequestEntityTooLarge, d)
		return
	case err != nil:
		d.Error = t("error.form")
		p.render(w, r, tag, http.StatusBadRequest, d)
		return
	}
	raw := f.file
	if len(raw) == 0 {
		text := bytes.TrimSpace(f.text)
		if len(text) == 0 {
			d.Error = t("error.empty")
			p.render(w, r, tag, http.StatusBadRequest, d)
			return
		}
		if len(text) < maxCode && !bytes.ContainsAny(text, "\r\n") {
			if q, err := explanation.ParseCodeQuery(string(text)); err == nil {
				rec := p.backend.Code(tag, q)
				d.Code = &codeView{CodeRecord: rec, Owner: newOwnerView(rec.Owner, true, t),
					StatusText: statusText(rec.Status, rec.Permanent, t)}
				p.render(w, r, tag, http.StatusOK, d)
				return
			}
		}
		raw = f.text
	}
	recs, err := p.backend.Explain(r.Context(), tag, pastedMessage(raw))
	if err != nil {
		d.Error = t("error.unreadable")
		p.render(w, r, tag, http.StatusBadRequest, d)
		return
	}
	d.Explained = newExplainedView(recs, t)
	p.render(w, r, tag, http.StatusOK, d)
}

// pastedHeader is the header given to a pasted text that has none.
const pastedHeader = "From: MAILER-DAEMON (text pasted in the helpdesk page)\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"

// pastedMessage is what the page reads of what was pasted or dropped. A
// bounce copied out of a mail program is often its text only, without a
// header; such a text is read as the body of a message from a mail system
// (which is what the person says it is by pasting it here), so that the
// free-text readers of package dsn look at it. Text that is no bounce stays
// no bounce.
func pastedMessage(b []byte) []byte {
	b = bytes.TrimLeft(b, "\r\n")
	line, _, _ := bytes.Cut(b, []byte("\n"))
	name, _, colon := bytes.Cut(line, []byte(":"))
	if (colon && message.IsFieldName(name)) || bytes.HasPrefix(line, []byte("From ")) {
		return b
	}
	return append([]byte(pastedHeader), b...)
}

// maxCode is the longest line read as a code or a reply rather than a
// message.
const maxCode = 4096

// maxLookupID bounds the id looked up.
const maxLookupID = 1000

// handleLookup is GET /lookup?id=: the message trace.
func (p *Page) handleLookup(w http.ResponseWriter, r *http.Request) {
	tag, lp := p.language(r, r.URL.Query().Get("lang"))
	t := p.textFunc(tag)
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if len(id) > maxLookupID {
		id = id[:maxLookupID]
	}
	d := data{LangParam: lp, LookupID: id}
	if id == "" {
		d.Error = t("error.lookup_empty")
		p.render(w, r, tag, http.StatusBadRequest, d)
		return
	}
	rec, err := p.backend.Lookup(r.Context(), id)
	switch {
	case err == nil:
		d.Lookup = newLookupView(id, rec, true)
		p.render(w, r, tag, http.StatusOK, d)
	case errors.Is(err, ledger.ErrNotFound):
		d.Lookup = newLookupView(id, rec, false)
		p.render(w, r, tag, http.StatusNotFound, d)
	case errors.Is(err, ErrNoLedger):
		d.Error = t("error.no_ledger")
		p.render(w, r, tag, http.StatusServiceUnavailable, d)
	default:
		d.Error = t("error.ledger")
		p.render(w, r, tag, http.StatusServiceUnavailable, d)
	}
}
