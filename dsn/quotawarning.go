package dsn

// Mailbox quota warnings are not bounces: the reader's own mail server
// tells them that their mailbox is nearly full, before it refuses mail for
// them. They name no recipient that failed and carry no message of the
// reader's, but speak of a mailbox and of mail that will be refused, so
// the free-text reader could take them for a mailbox-full bounce.

// FormatQuotaWarning is the Format of a KindNone report that is a warning,
// sent to the owner of a mailbox by their own mail system, that the
// mailbox is nearly full. The family, as its sources write it:
//   - Zimbra's zimbraQuotaWarnMessage (the default of the attribute,
//     zimbra-attrs.xml): Subject "Quota warning", "Your mailbox size has
//     reached ${MBOX_SIZE_MB}MB, which is over ${WARN_PERCENT}% of your
//     ${QUOTA_MB}MB quota. Please delete some messages to avoid exceeding
//     your quota.";
//   - Dovecot's quota-warning script (the quota plugin's documented
//     example, quota_warning = storage=95%% quota-warning 95 %u): Subject
//     "quota warning", "Your mailbox is now $PERCENT% full.";
//   - cPanel's mailbox quota notice: "Mailbox quota warning", "The mailbox
//     ... is almost full";
//   - Microsoft Exchange's warning at IssueWarningQuota (Set-Mailbox):
//     "Your mailbox is almost full.", from the System Administrator.
//
// Its Notice holds the text, for the figures it gives (percentage, size
// used, quota).
const FormatQuotaWarning = "quota-warning"

// quotaWarningSubjects are the lower-case subject words of the warnings of
// FormatQuotaWarning.
var quotaWarningSubjects = [...]string{
	"quota warning", "mailbox is almost full", "mailbox is nearly full", "is almost full", "is nearly full",
}

// quotaWarningTexts are lower-case words of the warnings' text: a subject
// alone does not make a quota warning (a person may write "quota warning").
var quotaWarningTexts = [...]string{
	"your mailbox size has reached", "of your quota", "exceeding your quota", "exceed your quota",
	"your mailbox is now", "mailbox is almost full", "mailbox is nearly full", "mailbox quota",
	"size limits set by your administrator",
}

// readQuotaWarning says whether the message is a mailbox quota warning (its
// subject and its text both say so, and its subject is no bounce's), and
// then marks the report (KindNone, FormatQuotaWarning, the text as Notice).
func (p *parser) readQuotaWarning() bool {
	if !headerContainsAny(p.hdr, "Subject", quotaWarningSubjectSet) {
		return false
	}
	if _, bounceSubject := p.headerEvidence(); bounceSubject {
		return false
	}
	p.loadText()
	if !quotaWarningTextSet.in(p.lowerText[:p.cut()]) {
		return false
	}
	p.rep.Kind = KindNone
	p.rep.Format = FormatQuotaWarning
	p.rep.Notice = p.notice()
	return true
}
