package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestRefusedAttachmentTypeIsTheSendersToFix checks the attachment-type
// family: whatever reason its phrase gives (policyviolation, virusdetected
// without a named malware, securityerror, filtered), the sender owns it,
// the explanation names the file when the refusal does, and the fix is to
// send without it, never "changing the message is unlikely to help".
func TestRefusedAttachmentTypeIsTheSendersToFix(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		name, diag, file string
	}{
		{"trend micro gateway", "Reason: The message contains a prohibited attachment type: ScanSetup_v4.2.exe (in ScanDriver.zip). 550 5.7.1 Message rejected by policy (attachment)", "ScanSetup_v4.2.exe (in ScanDriver.zip)"},
		{"exchange attachment filtering agent", "550 5.7.1 Message rejected due to unacceptable attachments", ""},
		{"gmail executable", "552 5.7.0 Our system detected an illegal attachment on your message", ""},
		{"gmail potentially executable", "552 5.7.0 The message was blocked because it has a potentially executable attachment. This form of attachment has been used by recent viruses or other malware.", ""},
		{"postfix header_checks", `550 5.7.1 Attachment name "invoice.js" may not end with ".js"`, "invoice.js"},
		{"sisimai securityerror", "554 5.7.1 Executable files are not allowed in compressed files.", ""},
		{"recipient-side filter", "550 5.7.1 Blocked by the recipient's filter: file type is not allowed (report.docm)", "report.docm"},
		// amavisd-new (README.banned, the BANNED report): the innermost
		// part's name, not the archive around it.
		{"amavisd-new part descriptors", "554 5.7.0 Reject, id=04417-12 - BANNED: P=p003,L=1,M=multipart/mixed | P=p002,L=1/2,M=application/zip,T=zip,N=docs.zip | P=p005,L=1/2/2,T=exe,N=invoice.exe", "invoice.exe"},
		{"amavisd-new older part list", "554 5.7.0 Message content rejected, id=31870-06 - BANNED: multipart/mixed | application/x-msdownload,.exe,.exe-ms,order.exe", "order.exe"},
		{"amavisd-new archive member", "554 5.7.0 Reject, id=24411-03 - BANNED: .exe,.zip/invoice.pdf.exe", "invoice.pdf.exe"},
		{"amavisd-new plain name", "554 5.7.0 Reject, id=19233-07 - BANNED: invoice_scan.js", "invoice_scan.js"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Diagnostic: tt.diag, Command: "DATA"})
			if c.Facts.Get(FactBlockedAttachment) == "" {
				t.Fatalf("reason %s, rule %s: no blocked_attachment condition", c.Reason, c.Rule)
			}
			if c.Owner != OwnerSender {
				t.Errorf("owner %s, want sender (reason %s)", c.Owner, c.Reason)
			}
			if !strings.Contains(c.Explanation, "type of file, not a virus") {
				t.Errorf("explanation %q is not the attachment type's", c.Explanation)
			}
			if tt.file != "" && (c.Facts.Get(FactFile) != tt.file || !strings.Contains(c.Explanation, tt.file)) {
				t.Errorf("file %q, explanation %q: want the file %q named", c.Facts.Get(FactFile), c.Explanation, tt.file)
			}
			if !strings.Contains(c.Fix, "Send the message again without") || strings.Contains(c.Fix, "unlikely to help") {
				t.Errorf("fix %q", c.Fix)
			}
		})
	}
}

// TestNamedMalwareIsNoAttachmentType checks that a scanner that names the
// malware it found keeps the malware words, even when it also speaks of an
// attachment.
func TestNamedMalwareIsNoAttachmentType(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Command: "DATA",
		Diagnostic: "554 5.7.1 Blocked attachment: virus found: Win.Test.EICAR_HDB-1 in invoice.zip"})
	if c.Reason != ReasonVirusDetected || !strings.Contains(c.Explanation, "malware (Win.Test.EICAR_HDB-1)") {
		t.Errorf("reason %s, explanation %q: want the malware named", c.Reason, c.Explanation)
	}
}

// TestSenderBlockIsNoAttachmentType checks that a filter refusal that says
// nothing of an attachment keeps the recipient side's words.
func TestSenderBlockIsNoAttachmentType(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Command: "DATA",
		Diagnostic: "550 5.7.1 Message blocked by the recipient's filter"})
	if c.Facts.Get(FactBlockedAttachment) != "" || strings.Contains(c.Explanation, "type of file") {
		t.Errorf("reason %s, explanation %q: an attachment type read into a sender block", c.Reason, c.Explanation)
	}
}
