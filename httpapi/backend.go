package httpapi

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/helpdesk"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// backend is the Server as the helpdesk page reads through it: the page
// and the API give the same answers.
type backend struct{ s *Server }

func (b backend) Explain(ctx context.Context, tag language.Tag, raw []byte) ([]explanation.Judged, error) {
	recs, err := b.s.explain(ctx, b.s.wordsLanguage(tag), raw)
	if errors.Is(err, errUnreadable) {
		err = fmt.Errorf("%w: %w", helpdesk.ErrUnreadable, err)
	}
	return recs, err
}

func (b backend) Code(tag language.Tag, q explanation.CodeQuery) explanation.CodeRecord {
	return q.LookupIn(b.s.current().Rules, b.s.wordsLanguage(tag))
}

func (b backend) Lookup(ctx context.Context, id string) (ledger.Record, error) {
	r, err := b.s.lookup(ctx, id)
	if errors.Is(err, errNoLedger) {
		err = fmt.Errorf("%w: %w", helpdesk.ErrNoLedger, err)
	}
	return r, err
}

func (b backend) Limit() int { return b.s.current().ParseCap }
