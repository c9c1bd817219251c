package backscatter

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/message"
)

// maxReferences bounds the Message-IDs of one automatic reply that are
// looked up.
const maxReferences = 20

// References returns the Message-IDs an automatic reply says it answers, in
// the form the ledger stores (ledger.NormalizeMessageID), distinct, at most
// maxReferences: those of its In-Reply-To and References fields (RFC 5322
// section 3.6.4; RFC 3834 section 3.1.4 asks a responder to write them),
// then the Message-ID of the original it quotes, as dsn read it (rep may
// be nil).
func References(raw []byte, rep *dsn.Report) []string {
	h, _, _ := message.ReadHeader(raw)
	var ids []string
	add := func(id string) {
		id = ledger.NormalizeMessageID(id)
		if id != "" && len(ids) < maxReferences && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, name := range [...]string{"In-Reply-To", "References"} {
		for i := range h {
			if strings.EqualFold(string(h[i].Name), name) {
				for _, id := range msgIDs(string(h[i].Value())) {
					add(id)
				}
			}
		}
	}
	if rep != nil {
		add(rep.Original.MessageID)
	}
	return ids
}

// msgIDs returns the msg-ids ("<left@right>", RFC 5322 section 3.6.4) in a
// field value, without their angle brackets; phrases between them (the
// obsolete In-Reply-To syntax) are skipped.
func msgIDs(v string) []string {
	var out []string
	for len(out) < maxReferences {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			break
		}
		v = v[i+1:]
		j := strings.IndexByte(v, '>')
		if j < 0 {
			break
		}
		if id := strings.TrimSpace(v[:j]); strings.Contains(id, "@") && !strings.ContainsAny(id, " \t<") {
			out = append(out, id)
		}
		v = v[j+1:]
	}
	return out
}

// idDomain is the right side of a Message-ID ("left@right"), as an address
// of that domain for Judge.Ours.
func idDomain(id string) string {
	i := strings.LastIndexByte(id, '@')
	if i < 0 {
		return ""
	}
	return "postmaster@" + strings.Trim(id[i+1:], "[]")
}

// answered judges an automatic reply by the Message-IDs it answers: No when
// one is in the ledger; missed (a Yes, EvidenceInReplyTo) only when there
// is at least one, every one is of our domains (a message of ours may carry
// a Message-ID its author's program made up on another domain, which the
// reply then names) and none is in the ledger, and the ledger covers the
// retention period (a young ledger lacks messages sent before it began).
func (j Judge) answered(ctx context.Context, in Input, f *findings) Evidence {
	ids := References(in.Raw, in.Report)
	if len(ids) == 0 {
		return ""
	}
	allOurs := true
	for _, id := range ids {
		if j.Ours != nil && !j.Ours(idDomain(id)) {
			allOurs = false
		}
		_, err := j.Ledger.ByMessageID(ctx, id)
		switch {
		case err == nil:
			return EvidenceInReplyTo
		case !errors.Is(err, ledger.ErrNotFound):
			f.err = err
		}
	}
	if !allOurs {
		f.foreign = true
		return ""
	}
	if !j.covers(ctx, f) {
		f.young = true
		return ""
	}
	f.miss(EvidenceInReplyTo)
	return ""
}
