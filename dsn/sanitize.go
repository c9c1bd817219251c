package dsn

import "github.com/ndrmilter/ndrmilter/internal/textclean"
import "github.com/ndrmilter/ndrmilter/smtpcode"

// sanitize makes every string of r valid UTF-8 (JSON output and header
// values are built from them) and cuts diagnostics at MaxDiagnostic.
func sanitize(r *Report) {
	r.ReportingMTA = textclean.UTF8(r.ReportingMTA)
	r.FeedbackType = textclean.UTF8(r.FeedbackType)
	r.Notice = textclean.UTF8(r.Notice)
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		rc.Address = textclean.UTF8(rc.Address)
		rc.OriginalRecipient = textclean.UTF8(rc.OriginalRecipient)
		for k := range rc.Aliases {
			rc.Aliases[k] = textclean.UTF8(rc.Aliases[k])
		}
		if rc.DiagnosticType != "" {
			rc.DiagnosticType = textclean.UTF8(rc.DiagnosticType)
		}
		rc.RemoteMTA = textclean.UTF8(rc.RemoteMTA)
		rc.Command = textclean.UTF8(rc.Command)
		if len(rc.Diagnostic) > MaxDiagnostic {
			rc.Diagnostic = rc.Diagnostic[:MaxDiagnostic]
		}
		rc.Diagnostic = textclean.UTF8(rc.Diagnostic)
		if rc.Status != "" && !smtpcode.IsStatus(rc.Status) {
			rc.Status = ""
		}
		if rc.ReplyCode != "" && !smtpcode.IsReply(rc.ReplyCode) {
			rc.ReplyCode = ""
		}
	}
	o := &r.Original
	o.MessageID, o.From, o.To = textclean.UTF8(o.MessageID), textclean.UTF8(o.From), textclean.UTF8(o.To)
	o.Subject, o.Date, o.Sender = textclean.UTF8(o.Subject), textclean.UTF8(o.Date), textclean.UTF8(o.Sender)
	for i := range o.Received {
		o.Received[i] = textclean.UTF8(o.Received[i])
	}
}
