package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/mail"
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/message"
)

// errUnreadable is the error of explain for input that is not a message at all.
var errUnreadable = errors.New("the body could not be read as a message")

// explain reads raw as "ndrmilter explain" does and judges a bounce or a
// delay report against the ledger as the milter does (backscatter.Judge).
// A message that is read at all gives at least one record.
func (s *Server) explain(ctx context.Context, tag language.Tag, raw []byte) ([]explanation.Judged, error) {
	select {
	case s.explaining <- struct{}{}:
		defer func() { <-s.explaining }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	set := s.current()
	rep, _ := dsn.Parse(raw) // a best-effort report comes with an error: it still says what could be read
	if rep == nil {
		return nil, errUnreadable
	}
	readings := set.Rules.ExplainIn(tag, rep)
	var j backscatter.Judgement
	if decide.Annotates(rep) {
		jctx, cancel := context.WithTimeout(ctx, set.LookupTimeout)
		judge := backscatter.Judge{Ours: decide.NewSite(set.Domains, nil).JudgeOurs()}
		if s.cfg.Ledger != nil {
			judge.Ledger = s.cfg.Ledger
		}
		j = judge.Report(jctx, rep, envelopeRecipients(raw))
		cancel()
	}
	out := make([]explanation.Judged, len(readings))
	for i, rd := range readings {
		out[i] = explanation.Judged{Record: explanation.NewRecord("", rep, rd),
			Backscatter: j.Verdict, BackscatterEvidence: j.Evidence}
	}
	return out, nil
}

// envelopeRecipients stands in for the envelope recipients of a message
// given without its envelope: the addresses its receiving server wrote in
// Delivered-To or X-Original-To (Postfix's local and virtual delivery), else
// those of To. A bounce goes to the original's envelope sender, which the
// milter takes from the envelope (backscatter.Judge.Report).
func envelopeRecipients(raw []byte) []string {
	h, _, _ := message.ReadHeader(raw)
	for _, name := range []string{"Delivered-To", "X-Original-To", "To"} {
		v := h.GetString(name)
		if v == "" {
			continue
		}
		list, err := mail.ParseAddressList(v)
		if err != nil {
			if a, err := mail.ParseAddress(strings.TrimSpace(v)); err == nil {
				list = []*mail.Address{a}
			} else {
				continue
			}
		}
		var out []string
		for i, a := range list {
			if i == 10 {
				break // bounded: a bounce has one recipient
			}
			out = append(out, a.Address)
		}
		return out
	}
	return nil
}

// readBody reads a request body of at most limit bytes; it answers the
// error itself (413 above the limit, 400 when empty or cut) and returns nil
// then.
func readBody(w http.ResponseWriter, r *http.Request, limit int) []byte {
	if r.ContentLength > int64(limit) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is %d bytes, over the limit of %d (parse_cap)", r.ContentLength, limit))
		return nil
	}
	size := 64 << 10
	if r.ContentLength > 0 {
		size = int(r.ContentLength)
	}
	var b bytes.Buffer
	b.Grow(size + bytes.MinRead) // ReadFrom wants MinRead free to see the end
	if _, err := b.ReadFrom(http.MaxBytesReader(w, r.Body, int64(limit))); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "the body is over the limit of "+strconv.Itoa(limit)+" bytes (parse_cap)")
		} else {
			writeError(w, http.StatusBadRequest, "the body could not be read: "+err.Error())
		}
		return nil
	}
	buf := b.Bytes()
	if len(buf) == 0 {
		writeError(w, http.StatusBadRequest, "an empty body: expected a message (RFC 5322), such as a bounce saved as .eml")
		return nil
	}
	return buf
}

// messageBody reports whether a request's Content-Type may be a raw
// message: none, message/rfc822, text/*, application/octet-stream, and
// application/x-www-form-urlencoded (what curl --data-binary sends unless
// told otherwise). A form with fields or JSON is something else.
func messageBody(r *http.Request) (string, bool) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "", true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct, false
	}
	switch {
	case mt == "message/rfc822", mt == "message/global", strings.HasPrefix(mt, "text/"),
		mt == "application/octet-stream", mt == "application/x-www-form-urlencoded":
		return mt, true
	}
	return mt, false
}

// handleExplain is POST /api/v1/explain.
func (s *Server) handleExplain(w http.ResponseWriter, r *http.Request) {
	tag := s.language(w, r)
	if mt, ok := messageBody(r); !ok {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type "+strconv.Quote(mt)+
			": expected a raw message in the body (message/rfc822, text/plain or application/octet-stream)")
		return
	}
	raw := readBody(w, r, s.current().ParseCap)
	if raw == nil {
		return
	}
	recs, err := s.explain(r.Context(), tag, raw)
	switch {
	case errors.Is(err, errUnreadable):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "the request ended before the message was read: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, recs)
}

// handleCode is GET /api/v1/code?q=CODE.
func (s *Server) handleCode(w http.ResponseWriter, r *http.Request) {
	tag := s.language(w, r)
	q, err := explanation.ParseCodeQuery(r.URL.Query().Get("q"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "q: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, q.LookupIn(s.current().Rules, tag))
}
