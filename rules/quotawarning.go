package rules

import (
	"regexp"
	"sync"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// A mailbox quota warning (dsn.FormatQuotaWarning) is no bounce: the
// reader's own mail system tells them that their mailbox is nearly full.
// Nothing they sent failed; mail to them will be refused once the mailbox
// is full, so they act in person: delete or archive old mail, or ask for a
// larger quota.

// quotaSize is a size as quota warnings write it: Zimbra's "4634MB"
// (zimbraQuotaWarnMessage, ${MBOX_SIZE_MB}MB), Exchange's "1.9 GB".
const quotaSize = `(\d{1,9}(?:[.,]\d{1,3})?\s?[KMGT]i?B)\b`

// The regexps are compiled on first use: every command pays for what is
// compiled at start (issue 14), and few messages are quota warnings.
var (
	// quotaPercent is how full the mailbox is: Zimbra's "over 90% of
	// your 5120MB quota", Dovecot's example "Your mailbox is now 95% full".
	quotaPercent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d{1,3}(?:[.,]\d{1,2})?) ?%`) })
	// quotaUsed is the size the mailbox has reached: Zimbra's "Your
	// mailbox size has reached 4634MB", a "mailbox size: 1.9 GB" line,
	// "it is using 912 MB of its 1024 MB mailbox quota".
	quotaUsed = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:size has reached|mailbox size(?: is|:)|\busing)\s+` + quotaSize)
	})
	// quotaLimit is the quota: Zimbra's "of your 5120MB quota", "of its
	// 1024 MB mailbox quota", a "quota: 5 GB" or "limit: 2 GB" line.
	quotaLimit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:of (?:your|its)\s+` + quotaSize + `\s+(?:mailbox\s+)?quota|(?:quota|limit)(?: of| is|:)\s+` + quotaSize + `)`)
	})
)

// quotaWarning is the reading of a mailbox quota warning: its figures, when
// the notice gives them, as facts and in the explanation.
func (e *Engine) quotaWarning(r *dsn.Report, lang int) Classification {
	v := Classification{Owner: OwnerRecipient}
	t := e.textsFor(lang)
	var vals slotValues
	set := func(f Fact, value string) {
		i := slotIndexOf(f)
		v.Facts.v[i] = value
		vals[slotFact0+slot(i)] = value
	}
	n := r.Notice
	if m := quotaPercent().FindStringSubmatch(n); m != nil {
		set(FactPercent, m[1]+"%")
	}
	if m := quotaUsed().FindStringSubmatch(n); m != nil {
		set(FactUsed, m[1])
	}
	if m := quotaLimit().FindStringSubmatch(n); m != nil {
		for _, s := range m[1:] {
			if s != "" {
				set(FactLimit, s)
				break
			}
		}
	}
	v.Summary = t[textQuotaWarningSummary].plain()
	v.Explanation = t[textQuotaWarningExplanation].render(&vals)
	v.Fix = t[textQuotaWarningFix].plain()
	return v
}
