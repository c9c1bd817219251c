// Package postfixlogtest writes synthetic Postfix logs, for the tests and the
// import benchmark of package postfixlog: a mail server's day of messages
// (submission, local pickup, inbound mail delivered locally, relayed mail of
// another domain, Postfix's own bounces), each logged as Postfix 3.7 logs it
// (smtpd, cleanup, qmgr, smtp/local/virtual, bounce), interleaved in time
// with other daemons' lines (postscreen, anvil, TLS, dovecot, opendkim,
// cron). An SMTP session's connect and disconnect lines are logged for
// about one message in two (clients send several messages per session),
// TLS lines rarely (Postfix's default TLS log level logs none). It also says what an import must find in the log: the Record of
// every message that left from the domain.
//
// The lines are written for this package on the model of what a private
// Postfix 3.7 instance logs; no real log is copied.
package postfixlogtest

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Options shape a generated log. The zero value is a realistic day of
// 80,000 messages (about 77 MB) ending now, from domain example.org.
type Options struct {
	Messages int           // messages logged (default 80,000)
	End      time.Time     // time of the last message's arrival (default now)
	Span     time.Duration // time between the first and the last arrival (default 24 hours)
	Seed     uint64        // for the same Seed and Options, the same log
	Domain   string        // our domain (default example.org)
	Location *time.Location
	// RFC3339 writes time stamps as rsyslog does on Debian
	// ("2026-11-29T21:14:20.123456+00:00"), else classic syslog
	// ("Nov 29 21:14:20").
	RFC3339 bool
	// Expect, if set, is called with the Record an import limited to
	// Domain must make of each message that left from Domain (sender in
	// Domain, not a null sender, at least one smtp "to=" line sent,
	// deferred or bounced; mail relayed for another domain is not), in
	// the order of the messages' first lines. Recipients are in the order
	// of their first "to=" line, at most ledger.MaxRecipients of them.
	Expect func(ledger.Record)
}

// Summary counts what a generated log holds.
type Summary struct {
	Lines    int   // lines written
	Bytes    int64 // bytes written
	Messages int   // messages (queue files) logged, Postfix's own bounces included
	Leaving  int   // messages an import records: those given to Options.Expect
	Pairs    int   // (sender, recipient) pairs of those messages, past MaxRecipients included
}

func (o Options) withDefaults() Options {
	if o.Messages <= 0 {
		o.Messages = 80000
	}
	if o.End.IsZero() {
		o.End = time.Now()
	}
	if o.Span <= 0 {
		o.Span = 24 * time.Hour
	}
	if o.Domain == "" {
		o.Domain = "example.org"
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	return o
}

// line is one log line to come, ordered by time then by the order it was
// made in (lines of one message keep their order).
type line struct {
	at   time.Time
	seq  uint64
	text string // after "host program[pid]: "
	prog string // program, e.g. "postfix/qmgr"
	pid  int
}

type lineHeap []line

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(line)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// gen holds the state of one log being written.
type gen struct {
	o    Options
	rnd  *rand.Rand
	w    *bufio.Writer
	sum  Summary
	seq  uint64
	q    lineHeap
	qids uint64
	buf  []byte
	err  error
}

// Write writes a log shaped by o to w and returns what it holds.
func Write(w io.Writer, o Options) (Summary, error) {
	o = o.withDefaults()
	g := &gen{o: o, rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), w: bufio.NewWriterSize(w, 256<<10)}
	g.qids = g.rnd.Uint64() & 0xFFFFFFFFF
	start := o.End.Add(-o.Span)
	step := o.Span / time.Duration(o.Messages)
	for i := range o.Messages {
		at := start.Add(time.Duration(i) * step).Add(time.Duration(g.rnd.Int64N(int64(step) + 1)))
		// Lines due before this arrival go out first: the log stays in
		// time order and the in-flight lines stay few.
		g.drain(at)
		g.message(at)
		if g.err != nil {
			return g.sum, g.err
		}
	}
	g.drain(time.Time{})
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	return g.sum, g.err
}

// drain writes the lines due before t (all of them for the zero t).
func (g *gen) drain(t time.Time) {
	for len(g.q) > 0 && (t.IsZero() || g.q[0].at.Before(t)) {
		g.emit(heap.Pop(&g.q).(line))
	}
}

func (g *gen) emit(l line) {
	if g.err != nil {
		return
	}
	b := g.buf[:0]
	at := l.at.In(g.o.Location)
	if g.o.RFC3339 {
		b = at.AppendFormat(b, "2006-01-02T15:04:05.000000-07:00")
	} else {
		b = at.AppendFormat(b, time.Stamp)
	}
	b = append(b, " mx "...)
	b = append(b, l.prog...)
	b = append(b, '[')
	b = fmt.Appendf(b, "%d", l.pid)
	b = append(b, "]: "...)
	b = append(b, l.text...)
	b = append(b, '\n')
	g.buf = b
	n, err := g.w.Write(b)
	g.sum.Lines++
	g.sum.Bytes += int64(n)
	if err != nil {
		g.err = err
	}
}

// at schedules a line.
func (g *gen) at(t time.Time, prog string, pid int, format string, args ...any) {
	g.seq++
	heap.Push(&g.q, line{at: t, seq: g.seq, prog: prog, pid: pid, text: fmt.Sprintf(format, args...)})
}

// maybe schedules a line one time in n.
func (g *gen) maybe(n int, t time.Time, prog string, pid int, format string, args ...any) {
	if g.rnd.IntN(n) == 0 {
		g.at(t, prog, pid, format, args...)
	}
}

// queueID returns a new short (hexadecimal) queue id, or now and then a
// long one (enable_long_queue_ids).
func (g *gen) queueID() string {
	g.qids += 1 + uint64(g.rnd.IntN(97))
	if g.rnd.IntN(20) == 0 {
		const alphabet = "0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz"
		b := []byte{'4'}
		for range 14 {
			b = append(b, alphabet[g.rnd.IntN(len(alphabet))])
		}
		return string(b)
	}
	return fmt.Sprintf("%011X", g.qids&0xFFFFFFFFFFF)
}

func (g *gen) pid() int { return 1000 + g.rnd.IntN(60000) }

func (g *gen) ip() string {
	return fmt.Sprintf("%d.%d.%d.%d", []int{192, 198, 203, 185, 91}[g.rnd.IntN(5)], g.rnd.IntN(256), g.rnd.IntN(256), 1+g.rnd.IntN(254))
}

func (g *gen) ms(min, max int) time.Duration {
	return time.Duration(min+g.rnd.IntN(max-min+1)) * time.Millisecond
}

var (
	users       = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "info", "sales", "support", "billing", "noreply", "newsletter"}
	remoteDoms  = []string{"gmail.com", "outlook.com", "yahoo.com", "gmx.de", "web.de", "orange.fr", "remote.test", "partner.example.net", "customer.example.com", "university.example.edu", "mail.example.co.uk", "t-online.de", "icloud.com", "proton.me", "fastmail.com"}
	remoteMX    = []string{"gmail-smtp-in.l.google.com", "example-com.mail.protection.outlook.com", "mta7.am0.yahoodns.net", "mx00.emig.gmx.net", "mx-ha03.web.de", "smtp-in.orange.fr", "mx.remote.test", "mx1.partner.example.net", "mail.customer.example.com", "mx.university.example.edu"}
	bounceTexts = []string{
		"host %s[%s] said: 550 5.1.1 <%s>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command)",
		"host %s[%s] said: 550-5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. For more information, go to https://support.google.com/mail/?p=NoSuchUser %s - gsmtp (in reply to RCPT TO command)",
		"host %s[%s] said: 552 5.2.2 <%s>: mailbox full (in reply to end of DATA command)",
	}
	deferTexts = []string{
		"connect to %s[%s]:25: Connection timed out",
		"host %s[%s] said: 451 4.7.1 <%s>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.html (in reply to RCPT TO command)",
		"host %s[%s] said: 421 4.7.0 [%s] Our system has detected an unusual rate of unsolicited mail originating from your IP address. (in reply to end of DATA command)",
	}
)

func pick[T any](g *gen, s []T) T { return s[g.rnd.IntN(len(s))] }

// message logs one message arriving at t.
func (g *gen) message(t time.Time) {
	g.sum.Messages++
	g.noise(t)
	switch n := g.rnd.IntN(100); {
	case n < 52:
		g.outbound(t, "submission", fmt.Sprintf("%s@%s", pick(g, users), g.o.Domain))
	case n < 60:
		g.outbound(t, "pickup", fmt.Sprintf("%s@mx.%s", pick(g, []string{"root", "www-data", "backup", "nagios"}), g.o.Domain))
	case n < 65:
		g.outbound(t, "relay", fmt.Sprintf("%s@%s", pick(g, users), "customer.example.com"))
	default:
		g.inbound(t)
	}
}

// recipients returns how many recipients a message has: mostly one, some a
// few, now and then a list.
func (g *gen) recipients() int {
	switch n := g.rnd.IntN(1000); {
	case n < 850:
		return 1
	case n < 980:
		return 2 + g.rnd.IntN(3)
	case n < 998:
		return 5 + g.rnd.IntN(16)
	default:
		return 30 + g.rnd.IntN(120)
	}
}

// outbound logs a message from sender to remote recipients, submitted by
// an authenticated client ("submission"), by sendmail(1) ("pickup"), or
// relayed for a customer ("relay").
func (g *gen) outbound(t time.Time, how, sender string) {
	qid := g.queueID()
	mid := fmt.Sprintf("%x.%x@%s", t.UnixNano(), g.rnd.Uint32(), strings.SplitN(sender, "@", 2)[1])
	if g.rnd.IntN(3) == 0 {
		mid = fmt.Sprintf("CA%X+%x=%s@mail.%s", g.rnd.Uint64(), g.rnd.Uint32(), strings.ToUpper(qid[:4]), g.o.Domain)
	}
	spid := g.pid()
	cl := fmt.Sprintf("client%d.%s", g.rnd.IntN(500), g.o.Domain)
	cip := fmt.Sprintf("10.%d.%d.%d", g.rnd.IntN(256), g.rnd.IntN(256), 1+g.rnd.IntN(254))
	switch how {
	case "submission":
		g.maybe(2, t, "postfix/submission/smtpd", spid, "connect from %s[%s]", cl, cip)
		g.maybe(20, t, "postfix/submission/smtpd", spid, "Anonymous TLS connection established from %s[%s]: TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits) key-exchange X25519 server-signature RSA-PSS (2048 bits) server-digest SHA256", cl, cip)
		g.at(t, "postfix/submission/smtpd", spid, "%s: client=%s[%s], sasl_method=PLAIN, sasl_username=%s", qid, cl, cip, sender)
	case "pickup":
		g.at(t, "postfix/pickup", g.pid(), "%s: uid=%d from=<%s>", qid, g.rnd.IntN(1001), strings.SplitN(sender, "@", 2)[0])
	case "relay":
		g.maybe(2, t, "postfix/smtpd", spid, "connect from mail.customer.example.com[%s]", cip)
		g.at(t, "postfix/smtpd", spid, "%s: client=mail.customer.example.com[%s]", qid, cip)
	}
	t1 := t.Add(g.ms(5, 80))
	g.at(t1, "postfix/cleanup", g.pid(), "%s: message-id=<%s>", qid, mid)
	if how != "pickup" {
		g.maybe(8, t1.Add(g.ms(1, 5)), "opendkim", g.pid(), "%s: DKIM-Signature field added (s=mail, d=%s)", qid, g.o.Domain)
	}
	n := g.recipients()
	size := 900 + g.rnd.IntN(60000)
	qpid := 400 + g.rnd.IntN(50)
	t2 := t1.Add(g.ms(1, 20))
	g.at(t2, "postfix/qmgr", qpid, "%s: from=<%s>, size=%d, nrcpt=%d (queue active)", qid, sender, size, n)
	if how != "pickup" {
		sprog := "postfix/smtpd"
		if how == "submission" {
			sprog = "postfix/submission/smtpd"
		}
		g.maybe(2, t2.Add(g.ms(10, 300)), sprog, spid,
			"disconnect from %s[%s] ehlo=2 starttls=1 auth=1 mail=1 rcpt=%d data=1 quit=1 commands=%d", cl, cip, n, 8+n)
	}
	leaves := ledger.InDomains(sender, []string{g.o.Domain})
	rec := ledger.Record{MessageID: mid, QueueID: qid, Sender: sender, Time: t1.Truncate(g.resolution())}
	type firstTo struct {
		rcpt string
		at   time.Time
	}
	var tos []firstTo // in the order made, which is the log's for equal times
	end := t2
	pending := false // a recipient still deferred when the log ends
	var bounced []string
	for i := range n {
		dom := pick(g, remoteDoms)
		rcpt := fmt.Sprintf("%s%d@%s", pick(g, users), g.rnd.IntN(1000), dom)
		if i == 0 || g.rnd.IntN(2) == 0 {
			rcpt = fmt.Sprintf("%s@%s", pick(g, users), dom)
		}
		mx := pick(g, remoteMX)
		mxip := g.ip()
		spid := g.pid()
		td := t2.Add(g.ms(50, 2500))
		tos = append(tos, firstTo{rcpt, td})
		if g.rnd.IntN(20) == 0 {
			g.at(td.Add(-g.ms(5, 40)), "postfix/smtp", spid, "Trusted TLS connection established to %s[%s]:25: TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits) key-exchange X25519 server-signature ECDSA (P-256) server-digest SHA256", mx, mxip)
		}
		switch s := g.rnd.IntN(100); {
		case s < 94: // sent
			g.sent(td, spid, qid, rcpt, mx, mxip, td.Sub(t))
		case s < 97: // deferred, then sent at a retry
			g.deferred(td, spid, qid, rcpt, mx, mxip, td.Sub(t))
			td = td.Add(time.Duration(5+g.rnd.IntN(25)) * time.Minute)
			g.sent(td, g.pid(), qid, rcpt, mx, mxip, td.Sub(t))
		case s < 99: // bounced
			g.at(td, "postfix/smtp", spid, "%s: to=<%s>, relay=%s[%s]:25, delay=%.2f, delays=0.02/0.01/0.2/0.1, dsn=5.1.1, status=bounced (%s)",
				qid, rcpt, mx, mxip, td.Sub(t).Seconds(), fmt.Sprintf(pick(g, bounceTexts), mx, mxip, rcpt))
			bounced = append(bounced, rcpt)
		default: // deferred until the end of the log
			for k := range 3 {
				g.deferred(td.Add(time.Duration(k*k)*time.Hour), g.pid(), qid, rcpt, mx, mxip, td.Sub(t))
			}
			pending = true
		}
		end = later(end, td)
	}
	if len(bounced) > 0 && sender != "" {
		end = g.postfixBounce(end, qid, sender)
	}
	if !pending {
		g.at(end.Add(g.ms(1, 5)), "postfix/qmgr", qpid, "%s: removed", qid)
	}
	// The log lists the deliveries in time order: so does the Record,
	// each recipient once, up to the cap; the pairs are all of them.
	slices.SortStableFunc(tos, func(a, b firstTo) int { return a.at.Compare(b.at) })
	seen := map[string]bool{}
	for _, to := range tos {
		if seen[to.rcpt] {
			continue
		}
		seen[to.rcpt] = true
		if len(rec.Recipients) < ledger.MaxRecipients {
			rec.Recipients = append(rec.Recipients, to.rcpt)
		}
		if leaves {
			g.sum.Pairs++
		}
	}
	if leaves {
		g.sum.Leaving++
		if g.o.Expect != nil {
			g.o.Expect(rec)
		}
	}
}

func (g *gen) resolution() time.Duration {
	if g.o.RFC3339 {
		return time.Microsecond
	}
	return time.Second
}

func (g *gen) sent(t time.Time, pid int, qid, rcpt, mx, ip string, delay time.Duration) {
	reply := pick(g, []string{
		"250 2.0.0 OK  1732918460 a640c23a62f3a-aa5996c1b1fsi412233866b.1 - gsmtp",
		"250 2.6.0 <message@host> [InternalId=1234567890] Queued mail for delivery",
		"250 ok dirdel",
		"250 2.0.0 Ok: queued as 4Q3JfN1Kx5z9sH7",
		"250 2.0.0 Ok",
		"250 OK id=1tJd0T-00Yhk1-Mg",
	})
	g.at(t, "postfix/smtp", pid, "%s: to=<%s>, relay=%s[%s]:25, delay=%.2f, delays=%.2f/0.01/%.2f/%.2f, dsn=2.0.0, status=sent (%s)",
		qid, rcpt, mx, ip, delay.Seconds(), delay.Seconds()/3, delay.Seconds()/3, delay.Seconds()/3, reply)
}

func (g *gen) deferred(t time.Time, pid int, qid, rcpt, mx, ip string, delay time.Duration) {
	text := fmt.Sprintf(pick(g, deferTexts), mx, ip, rcpt)
	relay := "none"
	dsn := "4.4.1"
	if !strings.HasPrefix(text, "connect") {
		relay, dsn = mx+"["+ip+"]:25", "4.7.1"
	}
	g.at(t, "postfix/smtp", pid, "%s: to=<%s>, relay=%s, delay=%.0f, delays=0.1/0/30/0, dsn=%s, status=deferred (%s)", qid, rcpt, relay, delay.Seconds(), dsn, text)
}

// postfixBounce logs Postfix's own bounce of qid to sender: a null-sender
// message delivered here, which an import skips.
func (g *gen) postfixBounce(t time.Time, qid, sender string) time.Time {
	g.sum.Messages++
	bq := g.queueID()
	t = t.Add(g.ms(5, 50))
	g.at(t, "postfix/cleanup", g.pid(), "%s: message-id=<%s.%s@mx.%s>", bq, t.Format("20060102150405"), bq, g.o.Domain)
	g.at(t, "postfix/bounce", g.pid(), "%s: sender non-delivery notification: %s", qid, bq)
	qpid := 400 + g.rnd.IntN(50)
	g.at(t.Add(g.ms(1, 5)), "postfix/qmgr", qpid, "%s: from=<>, size=%d, nrcpt=1 (queue active)", bq, 3000+g.rnd.IntN(4000))
	td := t.Add(g.ms(5, 60))
	g.at(td, "postfix/local", g.pid(), "%s: to=<%s>, relay=local, delay=0.05, delays=0.02/0.01/0/0.02, dsn=2.0.0, status=sent (delivered to mailbox)", bq, sender)
	g.at(td.Add(g.ms(1, 5)), "postfix/qmgr", qpid, "%s: removed", bq)
	return t
}

// inbound logs a message from outside delivered to local users.
func (g *gen) inbound(t time.Time) {
	qid := g.queueID()
	spid := g.pid()
	host := fmt.Sprintf("mail-%s.%s", strings.ToLower(qid[3:8]), pick(g, remoteDoms))
	ip := g.ip()
	g.maybe(4, t, "postfix/postscreen", g.pid(), "PASS OLD [%s]:%d", ip, 30000+g.rnd.IntN(30000))
	g.maybe(2, t, "postfix/smtpd", spid, "connect from %s[%s]", host, ip)
	g.maybe(20, t, "postfix/smtpd", spid, "Anonymous TLS connection established from %s[%s]: TLSv1.3 with cipher TLS_AES_128_GCM_SHA256 (128/128 bits) key-exchange X25519 server-signature RSA-PSS (2048 bits) server-digest SHA256", host, ip)
	g.at(t, "postfix/smtpd", spid, "%s: client=%s[%s]", qid, host, ip)
	t1 := t.Add(g.ms(20, 400))
	g.at(t1, "postfix/cleanup", g.pid(), "%s: message-id=<%x@%s>", qid, g.rnd.Uint64(), host)
	g.maybe(8, t1, "opendkim", g.pid(), "%s: %s [%s] not internal", qid, host, ip)
	qpid := 400 + g.rnd.IntN(50)
	sender := fmt.Sprintf("%s@%s", pick(g, users), pick(g, remoteDoms))
	if g.rnd.IntN(10) == 0 {
		sender = "" // a bounce from outside
	}
	n := 1
	if g.rnd.IntN(5) == 0 {
		n = 2
	}
	g.at(t1.Add(g.ms(1, 10)), "postfix/qmgr", qpid, "%s: from=<%s>, size=%d, nrcpt=%d (queue active)", qid, sender, 2000+g.rnd.IntN(80000), n)
	g.maybe(2, t1.Add(g.ms(30, 200)), "postfix/smtpd", spid, "disconnect from %s[%s] ehlo=2 starttls=1 mail=1 rcpt=%d data=1 quit=1 commands=%d", host, ip, n, 6+n)
	end := t1
	for range n {
		rcpt := fmt.Sprintf("%s@%s", pick(g, users), g.o.Domain)
		td := t1.Add(g.ms(20, 900))
		if g.rnd.IntN(2) == 0 {
			g.at(td, "postfix/local", g.pid(), "%s: to=<%s>, relay=local, delay=%.2f, delays=0.3/0.01/0/0.05, dsn=2.0.0, status=sent (delivered to mailbox)", qid, rcpt, td.Sub(t).Seconds())
		} else {
			g.at(td, "postfix/virtual", g.pid(), "%s: to=<%s>, relay=virtual, delay=%.2f, delays=0.3/0.01/0/0.05, dsn=2.0.0, status=sent (delivered to maildir)", qid, rcpt, td.Sub(t).Seconds())
			g.maybe(8, td.Add(g.ms(1, 3)), "dovecot", g.pid(), "imap(%s)<%d><%x>: Logged out in=%d out=%d deleted=0 expunged=0 trashed=0 hdr_count=0 hdr_bytes=0 body_count=0 body_bytes=0", strings.SplitN(rcpt, "@", 2)[0], g.pid(), g.rnd.Uint32(), g.rnd.IntN(500), g.rnd.IntN(9000))
		}
		end = later(end, td)
	}
	g.at(end.Add(g.ms(1, 5)), "postfix/qmgr", qpid, "%s: removed", qid)
}

// noise logs lines of no interest to an import, about one per message.
func (g *gen) noise(t time.Time) {
	if g.rnd.IntN(6) > 0 {
		return
	}
	ip := g.ip()
	switch g.rnd.IntN(8) {
	case 0:
		g.at(t, "postfix/smtpd", g.pid(), "NOQUEUE: reject: RCPT from unknown[%s]: 554 5.7.1 Service unavailable; Client host [%s] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/%s; from=<spam%d@%s> to=<%s@%s> proto=ESMTP helo=<[%s]>", ip, ip, ip, g.rnd.IntN(9999), pick(g, remoteDoms), pick(g, users), g.o.Domain, ip)
	case 1:
		g.at(t, "postfix/postscreen", g.pid(), "DNSBL rank 3 for [%s]:%d", ip, 30000+g.rnd.IntN(30000))
	case 2:
		g.at(t, "postfix/anvil", g.pid(), "statistics: max connection rate 3/60s for (smtp:%s) at %s", ip, t.In(g.o.Location).Format(time.Stamp))
	case 3:
		g.at(t, "dovecot", g.pid(), "imap-login: Login: user=<%s@%s>, method=PLAIN, rip=%s, lip=198.51.100.25, mpid=%d, TLS, session=<%x>", pick(g, users), g.o.Domain, ip, g.pid(), g.rnd.Uint64())
	case 4:
		g.at(t, "postfix/smtpd", g.pid(), "warning: hostname %s.dynamic.example.net does not resolve to address %s: Name or service not known", strings.ReplaceAll(ip, ".", "-"), ip)
	case 5:
		g.at(t, "postfix/submission/smtpd", g.pid(), "lost connection after AUTH from unknown[%s]", ip)
	case 6:
		g.at(t, "CRON", g.pid(), "(root) CMD (   test -x /etc/cron.daily/popularity-contest && /etc/cron.daily/popularity-contest --crond)")
	default:
		g.at(t, "postfix/postscreen", g.pid(), "CONNECT from [%s]:%d to [198.51.100.25]:25", ip, 30000+g.rnd.IntN(30000))
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
