package main

import (
	"fmt"
	"io"
	"strings"

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

// ownerWords says who an owner is, for people.
var ownerWords = map[rules.Owner]string{
	rules.OwnerSender:         "the sender (you)",
	rules.OwnerSenderAdmin:    "the sender's email admin",
	rules.OwnerRecipientAdmin: "the recipient's email admin",
	rules.OwnerGroupOwner:     "the owner of the recipient group",
	rules.OwnerNone:           "nobody: it is temporary, wait for the retries",
	rules.OwnerUnknown:        "unknown",
}

// writeExplainText prints a reading in the spirit of a new-style Microsoft 365
// NDR: what happened, who must fix it, how, then the details for admins.
// why, when not nil, is called after the details of each recipient.
func writeExplainText(w io.Writer, file string, r *dsn.Report, readings []rules.Reading, why func(rules.Reading)) {
	// Every byte of a bounce is hostile, and this goes to a terminal.
	w = terminalWriter{w}
	fmt.Fprintf(w, "%s: %s", file, r.Kind)
	if r.Format != "" {
		fmt.Fprintf(w, " (%s)", r.Format)
	}
	fmt.Fprintln(w)
	for _, rd := range readings {
		if rd.Recipient.Address == "" && len(r.Recipients) == 0 {
			if rd.Explanation != "" {
				fmt.Fprintf(w, "  %s\n", rd.Explanation)
			}
			continue
		}
		fmt.Fprintf(w, "\n  Recipient:        %s\n", rd.Recipient.Address)
		fmt.Fprintf(w, "  What happened:    %s\n", rd.Explanation)
		fmt.Fprintf(w, "  Who must fix it:  %s\n", ownerText(rd))
		if rd.Fix != "" {
			fmt.Fprintf(w, "  How to fix it:    %s\n", rd.Fix)
		}
		fmt.Fprintf(w, "  Details for admins:\n")
		detail(w, "Generating server", r.ReportingMTA)
		detail(w, "Remote server", rd.Recipient.RemoteMTA)
		detail(w, "Enhanced status", statusText(rd))
		detail(w, "SMTP response", smtpResponse(rd.ReplyCode, rd.Recipient.Diagnostic))
		detail(w, "SMTP command", rd.Recipient.Command)
		reason := string(rd.Reason)
		if rd.HardBounce {
			reason += " (hard bounce: do not mail this address again)"
		}
		detail(w, "Reason", reason)
		if rd.Rule != "" {
			detail(w, "Rule", fmt.Sprintf("%s (matched %q)", rd.Rule, rd.Matched))
		}
		detail(w, "Named by server", factsText(rd.Facts))
		if why != nil {
			why(rd)
		}
	}
	o := r.Original
	if o.MessageID != "" || o.From != "" || o.To != "" || o.Subject != "" {
		fmt.Fprintf(w, "\n  Original message:\n")
		detail(w, "Message-ID", o.MessageID)
		detail(w, "From", o.From)
		detail(w, "To", o.To)
		detail(w, "Subject", o.Subject)
	}
	fmt.Fprintln(w)
}

// statusText is the enhanced status code as the server gave it, with what
// its class means; "none given" when the server gave none, even if the
// reading carries one ndrmilter inferred (a pseudo-code such as 5.0.911,
// which no admin would find in the server's logs).
func statusText(rd rules.Reading) string {
	if rd.StatusSource != rules.StatusServer {
		if rd.Recipient.Action == smtpcode.ActionFailed || rd.Recipient.Action == smtpcode.ActionDelayed {
			return "none given"
		}
		return ""
	}
	switch {
	case strings.HasPrefix(rd.Status, "2"):
		return rd.Status + " (success)"
	case rd.Permanent:
		return rd.Status + " (permanent)"
	}
	return rd.Status + " (temporary)"
}

// factsText lists the facts of a reading, "list=zen.spamhaus.org, ip=...".
func factsText(fs rules.Facts) string {
	var parts []string
	fs.Each(func(f rules.Fact, v string) { parts = append(parts, string(f)+"="+v) })
	return strings.Join(parts, ", ")
}

func detail(w io.Writer, name, value string) {
	if value == "" {
		return
	}
	fmt.Fprintf(w, "    %-18s %s\n", name+":", value)
}

// ownerText says who must act on a reading; nobody, when nothing failed.
func ownerText(rd rules.Reading) string {
	switch rd.Kind {
	case dsn.KindAutoreply, dsn.KindReceipt, dsn.KindDelivered, dsn.KindRelayed, dsn.KindExpanded, dsn.KindNone:
		return "nobody: nothing failed"
	}
	if w, ok := ownerWords[rd.Owner]; ok {
		return w
	}
	return string(rd.Owner)
}

// smtpResponse is the reply as the server gave it: the reply code, unless the
// diagnostic text already starts with it.
func smtpResponse(reply, diagnostic string) string {
	diagnostic = strings.TrimSpace(diagnostic)
	if reply == "" || strings.HasPrefix(diagnostic, reply) {
		return diagnostic
	}
	return strings.TrimSpace(reply + " " + diagnostic)
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
