package message

// EVALUATION ONLY: the generic half on github.com/emersion/go-message
// v0.18.2, to compare with the hand-written reader (speed, allocations,
// leniency). Not kept.

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"strings"
	"unsafe"

	gomessage "github.com/emersion/go-message"
	gmcharset "github.com/emersion/go-message/charset"
	gmtextproto "github.com/emersion/go-message/textproto"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

var _ = gmcharset.Reader // sets gomessage.CharsetReader

// Read on go-message: textproto.ReadHeader for the header, and
// textproto.MultipartReader for each multipart, recursively.
func (a *Arena) Read(raw []byte) Message {
	var m Message
	if bytes.HasPrefix(raw, []byte("From ")) {
		// An mbox From line, which go-message does not expect.
		if k := bytes.IndexByte(raw, '\n'); k >= 0 {
			raw = raw[k+1:]
		}
	}
	r := bytes.NewReader(raw)
	br := bufio.NewReader(r)
	th, err := gmtextproto.ReadHeader(br)
	if err != nil {
		// A go-message user would stop here; for a fair comparison the
		// reading goes on with the fields read so far.
		m.Truncated = true
	}
	body := raw[len(raw)-r.Len()-br.Buffered():]
	m.Header = fromTextproto(&th)
	w := gmWalker{}
	w.walk(&th, m.Header, body, len(raw)-len(body), 0)
	m.Parts, m.Truncated = w.parts, m.Truncated || w.truncated
	return m
}

type gmWalker struct {
	parts     []Part
	truncated bool
}

func (w *gmWalker) walk(th *gmtextproto.Header, h Header, body []byte, off, depth int) {
	if depth > MaxDepth || len(w.parts) >= MaxParts {
		w.truncated = true
		return
	}
	mh := gomessage.Header{Header: *th}
	mt, params, err := mh.ContentType()
	if err != nil || mt == "" {
		mt = "text/plain"
	}
	ct := ContentType{MediaType: mt, Boundary: params["boundary"], Charset: strings.ToLower(params["charset"])}
	cte := strings.ToLower(strings.TrimSpace(th.Get("Content-Transfer-Encoding")))
	if strings.HasPrefix(mt, "multipart/") && ct.Boundary != "" {
		mr := gmtextproto.NewMultipartReader(bytes.NewReader(body), ct.Boundary)
		n := 0
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				w.truncated = true
				break
			}
			ph := p.Header
			// Only the parts a report reader looks at are read, and only as
			// far as it looks (the hand-written reader copies nothing).
			pmh := gomessage.Header{Header: ph}
			pmt, _, _ := pmh.ContentType()
			if !strings.HasPrefix(pmt, "text/") && !strings.HasPrefix(pmt, "message/") && !strings.HasPrefix(pmt, "multipart/") && pmt != "" {
				n++
				continue
			}
			limit := int64(3 << 20)
			if strings.HasSuffix(pmt, "delivery-status") || strings.HasPrefix(pmt, "multipart/") || pmt == "message/rfc822" {
				limit = 24 << 20
			}
			b, err := io.ReadAll(io.LimitReader(p, limit))
			if err != nil {
				w.truncated = true
			}
			w.walk(&ph, fromTextproto(&ph), b, -1, depth+1)
			n++
		}
		if n > 0 {
			return
		}
		ct.MediaType = "text/plain"
	} else if strings.HasPrefix(mt, "multipart/") {
		ct.MediaType = "text/plain"
	}
	w.parts = append(w.parts, Part{ContentType: ct, TransferEncoding: cte, Header: h, Body: body, Offset: off, Depth: depth, tp: th})
}

// fromTextproto makes the fields the dsn heuristics read from go-message's
// header, without copying the strings.
func fromTextproto(th *gmtextproto.Header) Header {
	h := make(Header, 0, th.Len())
	fs := th.Fields()
	for fs.Next() {
		k, v := fs.Key(), fs.Value()
		h = append(h, Field{Name: unsafe.Slice(unsafe.StringData(k), len(k)), Raw: unsafe.Slice(unsafe.StringData(v), len(v))})
	}
	return h
}

// Decode on go-message: message.New decodes the transfer encoding and the
// charset; the reading stops at limit.
func (p *Part) Decode(limit int) (b []byte, cut bool) {
	var th gmtextproto.Header
	if p.tp != nil {
		th = *p.tp
	}
	e, _ := gomessage.New(gomessage.Header{Header: th}, bytes.NewReader(p.Body))
	if e == nil {
		return p.Body, false
	}
	b, _ = io.ReadAll(io.LimitReader(e.Body, int64(limit)+1))
	if len(b) > limit {
		b, cut = b[:limit], true
	}
	return b, cut
}

var wordDecoder = mime.WordDecoder{CharsetReader: gmcharset.Reader}

// DecodeWords on go-message's decoder (mime.WordDecoder with its charsets).
func DecodeWords(v string) string {
	s, err := wordDecoder.DecodeHeader(v)
	if err != nil {
		s = v
	}
	return textclean.UTF8(s)
}
