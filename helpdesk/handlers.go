package helpdesk

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/ledger"
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
	text string
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
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		if err := r.ParseForm(); err != nil {
			return f, tooLarge(err)
		}
		f.text = r.PostForm.Get("text")
		if len(f.text) > limit {
			return f, errTooLarge
		}
		return f, nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return f, err
	}
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
		b, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
		if err != nil {
			return f, tooLarge(err)
		}
		if len(b) > limit {
			return f, errTooLarge
		}
		switch part.FormName() {
		case "text":
			f.text = string(b)
		case "file":
			f.file = b
		case "lang":
			f.lang = string(b)
		}
	}
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
		d.Text = f.text
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
		text := strings.TrimSpace(f.text)
		if text == "" {
			d.Error = t("error.empty")
			p.render(w, r, tag, http.StatusBadRequest, d)
			return
		}
		if !strings.ContainsAny(text, "\r\n") {
			if q, err := explanation.ParseCodeQuery(text); err == nil {
				rec := p.backend.Code(q)
				d.Code = &codeView{CodeRecord: rec, Owner: newOwnerView(rec.Owner, true, t),
					StatusText: statusText(rec.Status, rec.Permanent, t)}
				p.render(w, r, tag, http.StatusOK, d)
				return
			}
		}
		raw = []byte(f.text)
	}
	recs, err := p.backend.Explain(r.Context(), raw)
	if err != nil {
		d.Error = t("error.unreadable")
		p.render(w, r, tag, http.StatusBadRequest, d)
		return
	}
	d.Explained = newExplainedView(recs, t)
	p.render(w, r, tag, http.StatusOK, d)
}

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
