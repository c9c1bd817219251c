package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/helpdesk"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// backend is the Server as the helpdesk page reads through it: the page
// and the API give the same answers.
type backend struct{ s *Server }

func (b backend) Explain(ctx context.Context, raw []byte) ([]explanation.Judged, error) {
	recs, err := b.s.explain(ctx, raw)
	if errors.Is(err, errUnreadable) {
		err = fmt.Errorf("%w: %w", helpdesk.ErrUnreadable, err)
	}
	return recs, err
}

func (b backend) Code(q explanation.CodeQuery) explanation.CodeRecord {
	return q.Lookup(b.s.current().Rules)
}

func (b backend) Lookup(ctx context.Context, id string) (ledger.Record, error) {
	r, err := b.s.lookup(ctx, id)
	if errors.Is(err, errNoLedger) {
		err = fmt.Errorf("%w: %w", helpdesk.ErrNoLedger, err)
	}
	return r, err
}

func (b backend) Limit() int { return b.s.current().ParseCap }
