package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/rules"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// explainRecord is one line of "explain --json": package explanation builds
// it, for the API too.
type explainRecord = explanation.Record

// The "why" of explain --json --why: package explanation defines it, so that
// the API can give it too.
type (
	whyRecord = explanation.Why
	whyMatch  = explanation.WhyMatch
	whyFact   = explanation.WhyFact
)

// labelWidth is the column the values of explain's and code's text start
// at, after "  " and the label.
const labelWidth = 18

// writeExplainText prints a reading in the spirit of a new-style Microsoft 365
// NDR: what happened, who must fix it, how, then the details for admins,
// with the words of lw. why, when not nil, is called after the details of
// each recipient.
func writeExplainText(w io.Writer, lw words, file string, r *dsn.Report, readings []rules.Reading, why func(rules.Reading)) {
	// Every byte of a bounce is hostile, and this goes to a terminal.
	w = terminalWriter{w}
	fmt.Fprintf(w, "%s: %s", file, r.Kind)
	if r.Format != "" {
		fmt.Fprintf(w, " (%s)", r.Format)
	}
	fmt.Fprintln(w)
	sameAs := sameReadings(readings)
	for i, rd := range readings {
		if sameAs[i] >= 0 {
			continue
		}
		if rd.Recipient.Address == "" && len(r.Recipients) == 0 {
			if rd.Fix != "" {
				// Someone must act though no recipient is named (a
				// post held by a list that does not name itself).
				fmt.Fprintf(w, "\n  %s%s\n", lw.label("cli.what", lw.width), rd.Explanation)
				fmt.Fprintf(w, "  %s%s\n", lw.label("cli.who", lw.width), ownerText(lw, rd))
				fmt.Fprintf(w, "  %s%s\n", lw.label("cli.fix", lw.width), rd.Fix)
				continue
			}
			if rd.Explanation != "" {
				fmt.Fprintf(w, "  %s\n", rd.Explanation)
			}
			continue
		}
		fmt.Fprintf(w, "\n  %s%s\n", lw.label("cli.recipient", lw.width), rd.Recipient.Address)
		switch {
		case rd.ForwardedFrom == "":
		case strings.EqualFold(rd.ForwardedTo, rd.Recipient.Address):
			fmt.Fprintf(w, "  %s%s\n", lw.label("cli.forwarded_from", lw.width), rd.ForwardedFrom)
		default:
			// Sendmail names the alias written; the address that failed
			// is the one it expanded to.
			fmt.Fprintf(w, "  %s%s\n", lw.label("cli.forwarded_to", lw.width), rd.ForwardedTo)
		}
		fmt.Fprintf(w, "  %s%s\n", lw.label("cli.what", lw.width), rd.Explanation)
		fmt.Fprintf(w, "  %s%s\n", lw.label("cli.who", lw.width), ownerText(lw, rd))
		if rd.Fix != "" {
			fmt.Fprintf(w, "  %s%s\n", lw.label("cli.fix", lw.width), rd.Fix)
		}
		fmt.Fprintf(w, "  %s\n", lw.text("cli.details"))
		detail(w, lw, "cli.generating", r.ReportingMTA)
		detail(w, lw, "cli.remote", rd.Recipient.RemoteMTA)
		detail(w, lw, "cli.status", statusText(lw, rd))
		if r.Format == dsn.FormatListHeld {
			// The list's words for why it holds the post: no SMTP reply.
			detail(w, lw, "cli.hold_reason", rd.Recipient.Diagnostic)
		} else {
			detail(w, lw, "cli.response", explanation.SMTPResponse(rd.Recipient.Reply, rd.Recipient.Diagnostic))
		}
		detail(w, lw, "cli.command", rd.Recipient.Command)
		reason := string(rd.Reason)
		switch {
		case rd.HardBounce && rd.ForwardedFrom != "":
			// The address the sender wrote was not refused: "do not
			// mail this address again" would be wrong advice.
			reason = lw.text("cli.hard_bounce_forwarded", "reason", reason, "original", rd.ForwardedFrom, "target", rd.ForwardedTo)
		case rd.HardBounce:
			reason = lw.text("cli.hard_bounce", "reason", reason)
		}
		detail(w, lw, "cli.reason", reason)
		if rd.Rule != "" {
			detail(w, lw, "cli.rule", lw.text("cli.matched", "rule", rd.Rule, "phrase", strconv.Quote(rd.Matched)))
		}
		detail(w, lw, "cli.named", factsText(rd.Facts))
		if why != nil {
			why(rd)
		}
		var same []string
		for j := i + 1; j < len(readings); j++ {
			if sameAs[j] == i {
				same = append(same, readings[j].Recipient.Address)
			}
		}
		if len(same) > 0 {
			fmt.Fprintf(w, "  %s\n", lw.text("cli.same_for", "count", strconv.Itoa(len(same))))
			for _, a := range same {
				fmt.Fprintf(w, "    %s\n", a)
			}
		}
	}
	o := r.Original
	if o.MessageID != "" || o.From != "" || o.To != "" || o.Subject != "" {
		fmt.Fprintf(w, "\n  %s\n", lw.text("cli.original"))
		detail(w, lw, "cli.message_id", o.MessageID)
		detail(w, lw, "cli.from", o.From)
		detail(w, lw, "cli.to", o.To)
		detail(w, lw, "cli.subject", o.Subject)
	}
	if decide.Annotates(r) && r.Format != dsn.FormatListBounceNotice && r.Format != dsn.FormatListUncaughtBounce && !rules.OwnScannerStopped(readings) {
		// A bounce for mail never sent here (backscatter) reads like any
		// other: only the record of sent mail tells them apart, which the
		// milter, the filter and the HTTP API consult and explain does
		// not. The reader is told how to tell, rather than left to act
		// on a bounce of someone else's mail. A list's notice about a
		// member's bounce is of the list's mail, never the reader's. Nor
		// is a message the sender's own outgoing scanner stopped for
		// malware backscatter: "delete this notice if you do not
		// recognise it" would hide an infected computer or account.
		fmt.Fprintf(w, "\n  %s\n    %s\n", lw.text("cli.sent_here"), lw.text("cli.not_checked"))
	}
	fmt.Fprintln(w)
}

// sameReadings tells, for each reading, the index of an earlier reading
// that says the same of another address (-1 for none): a notice listing
// a hundred recipients refused for one cause (too many recipients, a
// blocked sender) is read once and its addresses listed, rather than
// printed a hundred times over. Readings are the same when they differ
// only in the recipient's address; a forwarded recipient is always told
// on its own, since its text names two addresses.
func sameReadings(readings []rules.Reading) []int {
	sameAs := make([]int, len(readings))
	first := make(map[string]int, len(readings))
	for i, rd := range readings {
		sameAs[i] = -1
		addr := strings.ToLower(rd.Recipient.Address)
		if addr == "" || rd.ForwardedFrom != "" {
			continue
		}
		c := rd
		c.Recipient.Address = ""
		key := strings.ReplaceAll(strings.ToLower(fmt.Sprintf("%+v", c)), addr, "\x00")
		if j, ok := first[key]; ok {
			sameAs[i] = j
			continue
		}
		first[key] = i
	}
	return sameAs
}

// statusText is the enhanced status code as the server gave it, with what
// its class means; "none given" when the server gave none, even if the
// reading carries one ndrmilter inferred (a pseudo-code such as 5.0.911,
// which no admin would find in the server's logs).
func statusText(lw words, rd rules.Reading) string {
	if rd.StatusSource != rules.StatusServer {
		if rd.Recipient.Action == smtpcode.ActionFailed || rd.Recipient.Action == smtpcode.ActionDelayed {
			return lw.text("cli.none_given")
		}
		return ""
	}
	return lw.text("cli."+string(explanation.StatusClassOf(rd.Status, rd.Permanent)), "value", rd.Status)
}

// factsText lists the facts of a reading, "list=zen.spamhaus.org, ip=...".
func factsText(fs rules.Facts) string {
	var parts []string
	fs.Each(func(f rules.Fact, v string) { parts = append(parts, string(f)+"="+v) })
	return strings.Join(parts, ", ")
}

// detail prints one line of the details for admins: the label id, the value.
func detail(w io.Writer, lw words, id, value string) {
	if value == "" {
		return
	}
	fmt.Fprintf(w, "    %s%s\n", lw.label(id, lw.width+1), value)
}

// ownerText says who must act on a reading; nobody, when nothing failed.
func ownerText(lw words, rd rules.Reading) string {
	switch rd.Kind {
	case dsn.KindAutoreply, dsn.KindReceipt, dsn.KindDelivered, dsn.KindRelayed, dsn.KindExpanded, dsn.KindNone:
		if rd.Owner != rules.OwnerNone && rd.Owner != "" {
			// Nothing failed, yet someone must act: the sender of a
			// challenge, the moderator of a list that holds a post.
			return lw.owner(rd.Owner)
		}
		return lw.text("cli.owner.nofailure")
	}
	return lw.owner(rd.Owner)
}

// terminalWriter writes text for a terminal: every control character but
// newline and tab (ESC and the escape sequences it starts, such as a screen
// clear or an OSC 52 clipboard write; BEL, CR, backspace, C1 controls) and
// the bidirectional formatting characters are taken out
// (textclean.Terminal). Each Write is cleaned on its own: it must hold whole
// UTF-8 sequences, as each Fprintf does.
type terminalWriter struct{ w io.Writer }

func (t terminalWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, textclean.Terminal(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
