package frontend

import (
	"context"
	"time"

	"go.uber.org/zap"
	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Reader is what a front end needs to decide on an inbound message. A front
// end makes one per message from its current configuration and rules (both
// may be reloaded).
type Reader struct {
	// Rules explain a report.
	Rules *rules.Engine
	// Ledger is where reports are judged (see Metrics.Lookups); nil
	// without a ledger.
	Ledger backscatter.Ledger
	// Site says which addresses are ours.
	Site decide.Site
	// Policy is what the site chose for reports.
	Policy decide.Policy
	// LookupTimeout bounds the ledger lookups for one report (0:
	// DefaultLookupTimeout).
	LookupTimeout time.Duration
	// Metrics count the outcome; Log gets a line per explained report.
	Metrics *Metrics
	Log     *zap.Logger
	// Budget, when set, bounds the reports read at once (Budget.Parse): a
	// message that finds no parse slot in time passes unread.
	Budget *Budget
	// Text, when set, gives the kept text (f.Raw) once a parse slot is
	// held, so that a front end that keeps it in pieces joins them only
	// then.
	Text func() []byte
	// Privacy is how the log line shows addresses.
	Privacy Privacy
	// Evidence is the evidence beyond the ledger's the site turned on (nil:
	// none).
	Evidence *Evidence
	// AutoReplyOnly: the message is read because its header marks it as an
	// automatic reply (MarkedAutoReply), not because its envelope sender is
	// one reports come from: it is judged as an automatic reply or not at
	// all, never read as a report (a person may forward one).
	AutoReplyOnly bool
	// Received are the envelope recipients as the client gave them, BATV
	// tags included, when the front end rewrote them (nil: f.Recipients).
	Received []string
}

// Inbound decides what happens to an inbound message from the facts f a
// front end gathered (envelope, header, and f.Raw as kept). When candidate
// (decide.Route.Candidate), it first reads f.Raw as a possible report and,
// when it is one, explains it and judges it against the ledger. The outcome
// is counted and, for a report, logged with the time since start (when the
// message began).
func (r *Reader) Inbound(f decide.Facts, candidate bool, start time.Time) decide.Outcome {
	if candidate || r.AutoReplyOnly {
		r.Budget.Parse(func() {
			if r.Text != nil {
				f.Raw = r.Text()
			}
			rep, perr := dsn.Parse(f.Raw)
			switch {
			case decide.Annotates(rep) && !r.AutoReplyOnly:
				f.Report, f.ParseErr = rep, perr
				var offered []language.Tag // only auto reads the original's language
				if r.Policy.Language.Auto {
					offered = decide.Offered(r.Rules)
				}
				f.Language = r.Policy.Language.For(f.Raw, rep, offered)
				f.Readings = r.Rules.ExplainIn(f.Language, rep)
			case decide.JudgesAutoReply(rep, f.NullSender || MarkedAutoReply(f.Raw)):
				f.Report, f.ParseErr, f.AutoReply = rep, perr, true
			}
		})
		if rep := f.Report; rep != nil {
			t := r.LookupTimeout
			if t <= 0 {
				t = DefaultLookupTimeout
			}
			rcpts := r.Received
			if rcpts == nil {
				rcpts = f.Recipients
			}
			ctx, cancel := context.WithTimeout(context.Background(), t)
			f.Judgement = r.Evidence.Judge(r.Site, r.Ledger).Judge(ctx,
				backscatter.Input{Report: rep, Recipients: rcpts, Raw: f.Raw, AutoReply: f.AutoReply})
			cancel()
		}
	}
	out := decide.Inbound(r.Policy, f)
	r.Metrics.CountInbound(&out)
	if out.Event != nil && r.Log != nil {
		r.Log.Info("bounce", out.Event.Fields(time.Since(start), r.Privacy.Address)...)
	}
	return out
}

// MarkedAutoReply reports whether the header at the start of raw marks the
// message as an automatic reply (dsn.MarkedAutoReply).
func MarkedAutoReply(raw []byte) bool {
	h, _, _ := message.ReadHeader(raw)
	return dsn.MarkedAutoReply(h)
}
