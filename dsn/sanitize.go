package dsn

import "github.com/ndrmilter/ndrmilter/smtpcode"

// sanitize makes every string of r valid UTF-8 (JSON output and header
// values are built from them) and cuts diagnostics at MaxDiagnostic.
func sanitize(r *Report) {
	r.ReportingMTA = validUTF8(r.ReportingMTA)
	r.FeedbackType = validUTF8(r.FeedbackType)
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		rc.Address = validUTF8(rc.Address)
		rc.RemoteMTA = validUTF8(rc.RemoteMTA)
		rc.Command = validUTF8(rc.Command)
		if len(rc.Diagnostic) > MaxDiagnostic {
			rc.Diagnostic = rc.Diagnostic[:MaxDiagnostic]
		}
		rc.Diagnostic = validUTF8(rc.Diagnostic)
		if rc.Status != "" && !smtpcode.IsStatus(rc.Status) {
			rc.Status = ""
		}
		if rc.ReplyCode != "" && !smtpcode.IsReply(rc.ReplyCode) {
			rc.ReplyCode = ""
		}
	}
	o := &r.Original
	o.MessageID, o.From, o.To = validUTF8(o.MessageID), validUTF8(o.From), validUTF8(o.To)
	o.Subject, o.Date, o.Sender = validUTF8(o.Subject), validUTF8(o.Date), validUTF8(o.Sender)
	for i := range o.Received {
		o.Received[i] = validUTF8(o.Received[i])
	}
}
