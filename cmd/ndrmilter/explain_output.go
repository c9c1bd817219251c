package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/rules"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// explainRecord is one line of "explain --json". Other tools depend on these
// key names and meanings (issue "Bounce understanding"): add keys, never
// rename them.
type explainRecord struct {
	File              string          `json:"file"`
	Message           int             `json:"message,omitempty"` // position in an mbox file, from 1
	Kind              string          `json:"kind"`
	Format            string          `json:"format"`
	Recipient         string          `json:"recipient"`
	Action            smtpcode.Action `json:"action"`
	Command           string          `json:"command,omitempty"`
	Status            string          `json:"status"`
	ReplyCode         string          `json:"reply_code"`
	Reason            rules.Reason    `json:"reason"`
	HardBounce        bool            `json:"hard_bounce"`
	Permanent         bool            `json:"permanent"`
	Owner             rules.Owner     `json:"owner"`
	Summary           string          `json:"summary"`
	Explanation       string          `json:"explanation"`
	Fix               string          `json:"fix"`
	RemoteMTA         string          `json:"remote_mta"`
	ReportingMTA      string          `json:"reporting_mta"`
	Diagnostic        string          `json:"diagnostic"`
	OriginalMessageID string          `json:"original_message_id"`
	OriginalFrom      string          `json:"original_from"`
	OriginalTo        string          `json:"original_to"`
	OriginalSubject   string          `json:"original_subject"`
	Rule              string          `json:"rule,omitempty"`
}

func newExplainRecord(file string, r *dsn.Report, rd rules.Reading) explainRecord {
	return explainRecord{
		File:              file,
		Kind:              string(rd.Kind),
		Format:            r.Format,
		Recipient:         rd.Recipient.Address,
		Action:            rd.Recipient.Action,
		Command:           rd.Recipient.Command,
		Status:            rd.Status,
		ReplyCode:         rd.ReplyCode,
		Reason:            rd.Reason,
		HardBounce:        rd.HardBounce,
		Permanent:         rd.Permanent,
		Owner:             rd.Owner,
		Summary:           rd.Summary,
		Explanation:       rd.Explanation,
		Fix:               rd.Fix,
		RemoteMTA:         rd.Recipient.RemoteMTA,
		ReportingMTA:      r.ReportingMTA,
		Diagnostic:        rd.Recipient.Diagnostic,
		OriginalMessageID: r.Original.MessageID,
		OriginalFrom:      r.Original.From,
		OriginalTo:        r.Original.To,
		OriginalSubject:   r.Original.Subject,
		Rule:              rd.Rule,
	}
}

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
func writeExplainText(w io.Writer, file string, r *dsn.Report, readings []rules.Reading) {
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
		code := rd.Status
		if code != "" {
			if rd.Permanent {
				code += " (permanent)"
			} else {
				code += " (temporary)"
			}
		}
		detail(w, "Enhanced status", code)
		detail(w, "SMTP response", smtpResponse(rd.ReplyCode, rd.Recipient.Diagnostic))
		reason := string(rd.Reason)
		if rd.HardBounce {
			reason += " (hard bounce: do not mail this address again)"
		}
		detail(w, "Reason", reason)
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
