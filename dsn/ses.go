package dsn

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Amazon SES notifications: SES sends bounce, complaint and delivery events
// as JSON (through SNS, by email), not as RFC 3464 reports. The fields are
// those of SES's "notification contents" documentation.

// sesNotification is the part of an SES notification Parse reads.
type sesNotification struct {
	NotificationType string `json:"notificationType"`
	EventType        string `json:"eventType"`
	Bounce           *struct {
		BounceType        string `json:"bounceType"`
		BouncedRecipients []struct {
			EmailAddress   string `json:"emailAddress"`
			Action         string `json:"action"`
			Status         string `json:"status"`
			DiagnosticCode string `json:"diagnosticCode"`
		} `json:"bouncedRecipients"`
		ReportingMTA string `json:"reportingMTA"`
	} `json:"bounce"`
	Complaint *struct {
		ComplainedRecipients []struct {
			EmailAddress string `json:"emailAddress"`
		} `json:"complainedRecipients"`
		ComplaintFeedbackType string `json:"complaintFeedbackType"`
	} `json:"complaint"`
	Delivery *struct {
		Recipients   []string `json:"recipients"`
		SMTPResponse string   `json:"smtpResponse"`
		ReportingMTA string   `json:"reportingMTA"`
	} `json:"delivery"`
	Mail struct {
		MessageID     string `json:"messageId"`
		Source        string `json:"source"`
		CommonHeaders struct {
			MessageID string   `json:"messageId"`
			From      []string `json:"from"`
			To        []string `json:"to"`
			Subject   string   `json:"subject"`
			Date      string   `json:"date"`
		} `json:"commonHeaders"`
	} `json:"mail"`
}

// maxSESJSON caps the JSON text read of one notification.
const maxSESJSON = 256 << 10

// readSES reads an Amazon SES JSON notification in the text. It says
// whether there was one with recipients.
func (p *parser) readSES() bool {
	if !p.textDone && !sesHint(p.hdr) {
		return false // ordinary mail: no text search
	}
	p.loadText()
	js := sesJSON(p.text)
	if js == nil {
		return false
	}
	var n sesNotification
	if err := json.NewDecoder(bytes.NewReader(js)).Decode(&n); err != nil {
		return false
	}
	r := p.rep
	typ := strings.ToLower(n.NotificationType)
	if typ == "" {
		typ = strings.ToLower(n.EventType)
	}
	add := func(rc Recipient) {
		if rc.Address != "" && len(r.Recipients) < MaxRecipients {
			r.Recipients = p.sc.addRecipient(r.Recipients, rc)
		}
	}
	switch {
	case typ == "bounce" && n.Bounce != nil:
		_, r.ReportingMTA = stripType(n.Bounce.ReportingMTA)
		fallback := smtpcode.ActionFailed
		if strings.EqualFold(n.Bounce.BounceType, "Transient") {
			fallback = smtpcode.ActionDelayed
		}
		for _, b := range n.Bounce.BouncedRecipients {
			add(Recipient{Address: cleanAddress(b.EmailAddress), Action: smtpcode.ParseAction(b.Action), Status: b.Status, Diagnostic: b.DiagnosticCode})
		}
		p.sesOriginal(&n)
		r.Format = "amazonses"
		p.finish(func() smtpcode.Action { return fallback })
	case typ == "complaint" && n.Complaint != nil:
		for _, c := range n.Complaint.ComplainedRecipients {
			add(Recipient{Address: cleanAddress(c.EmailAddress)})
		}
		p.sesOriginal(&n)
		r.Kind = KindFeedback
		r.FeedbackType = ascii.LowerString(n.Complaint.ComplaintFeedbackType)
		r.Format = "amazonses"
	case typ == "delivery" && n.Delivery != nil:
		_, r.ReportingMTA = stripType(n.Delivery.ReportingMTA)
		for _, a := range n.Delivery.Recipients {
			add(Recipient{Address: cleanAddress(a), Action: smtpcode.ActionDelivered, Diagnostic: n.Delivery.SMTPResponse})
		}
		p.sesOriginal(&n)
		r.Format = "amazonses"
		p.finish(func() smtpcode.Action { return smtpcode.ActionDelivered })
	default:
		return false
	}
	return len(r.Recipients) > 0
}

// sesOriginal fills the original message from an SES notification's mail object.
func (p *parser) sesOriginal(n *sesNotification) {
	o := &p.rep.Original
	if o.MessageID == "" {
		o.MessageID = messageID(n.Mail.CommonHeaders.MessageID)
		if o.MessageID == "" {
			o.MessageID = n.Mail.MessageID
		}
	}
	if o.From == "" && len(n.Mail.CommonHeaders.From) > 0 {
		o.From = firstAddress(n.Mail.CommonHeaders.From[0])
	}
	if o.To == "" {
		o.To = strings.Join(n.Mail.CommonHeaders.To, ", ")
	}
	if o.Subject == "" {
		o.Subject = textclean.UTF8(n.Mail.CommonHeaders.Subject)
	}
	if o.Date == "" {
		o.Date = n.Mail.CommonHeaders.Date
	}
	if o.Sender == "" {
		o.Sender = cleanAddress(n.Mail.Source)
	}
}

// sesJSON finds the notification in text: a JSON object with a
// notificationType (or eventType), sent as it is or, through SNS, as the
// string "Message" of an SNS envelope. nil when there is none.
func sesJSON(text []byte) []byte {
	brace := bytes.IndexByte(text, '{')
	if brace < 0 {
		return nil // most texts: no JSON at all
	}
	text = text[brace:]
	clean := func(js []byte) []byte {
		if len(js) > maxSESJSON {
			js = js[:maxSESJSON]
		}
		// Mail gateways fold long lines by inserting "!" and a line break.
		if bytes.Contains(js, []byte("!\n ")) || bytes.Contains(js, []byte("!\r\n ")) {
			js = bytes.ReplaceAll(js, []byte("!\r\n "), nil)
			js = bytes.ReplaceAll(js, []byte("!\n "), nil)
		}
		return js
	}
	for _, key := range [...]string{`"notificationType"`, `"eventType"`} {
		if k := bytes.Index(text, []byte(key)); k >= 0 {
			if start := bytes.LastIndexByte(text[:k], '{'); start >= 0 {
				return clean(text[start:])
			}
		}
	}
	// The SNS envelope: {"Type" : "Notification", "Message" : "{\"notificationType\":...}"}.
	if !bytes.Contains(text, []byte(`\"notificationType\"`)) && !bytes.Contains(text, []byte(`\"eventType\"`)) {
		return nil
	}
	start := bytes.IndexByte(text, '{')
	if start < 0 {
		return nil
	}
	var env struct {
		Message string `json:"Message"`
	}
	if err := json.NewDecoder(bytes.NewReader(clean(text[start:]))).Decode(&env); err != nil || !strings.HasPrefix(env.Message, "{") {
		return nil
	}
	return []byte(env.Message)
}

// sesHint says whether the header suggests an Amazon SES (or SNS)
// notification: its sender or subject names Amazon or AWS.
func sesHint(h message.Header) bool {
	for _, name := range [...]string{"From", "Return-Path", "Subject"} {
		v := h.Get(name)
		if indexFoldBytes(v, "amazon") >= 0 || indexFoldBytes(v, "aws") >= 0 {
			return true
		}
	}
	return false
}
