package milter

import (
	"net/netip"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
)

// Config is the milter's behaviour. The zero value is usable: defaults are
// filled in by New and Reload.
type Config struct {
	// Domains are our domains: only bounces to or about addresses in them
	// are judged for backscatter. Empty means every domain is ours.
	Domains []string
	// TrustedNetworks are client networks whose mail is outbound (default
	// 127.0.0.0/8 and ::1).
	TrustedNetworks []netip.Prefix
	// BackscatterAction is what happens to backscatter (default tag).
	BackscatterAction decide.Action
	// ParseCap is how many bytes of a bounce (header and body) are kept for
	// parsing (default 2 MiB). The rest streams through unbuffered.
	ParseCap int
	// MaxRecipientHeaders caps X-NDR-Status and X-NDR-Explanation headers
	// per message (default 10).
	MaxRecipientHeaders int
	// SubjectTag prefixes the Subject of a bounce with "[Bounce: summary]".
	// Off by default: it breaks a DKIM signature that covers Subject.
	SubjectTag bool
	// BodySummary puts a short plain-text summary at the top of the
	// bounce's human-readable part. Off by default: it changes the body,
	// which breaks the bounce's DKIM signature (body hash).
	BodySummary bool
	// RecordWait is how long end of message waits for the ledger to take
	// an outbound record before it writes it to the spool (SpoolDir) and
	// lets the message go (default frontend.DefaultRecordWait; negative:
	// do not wait, the record is written in the background and a kill in
	// that moment loses it).
	RecordWait time.Duration
	// SpoolDir is where outbound records the ledger has not taken wait,
	// on disk, to be written once it answers ("": no spool; a record the
	// ledger does not take is retried in memory, within
	// MaxPendingRecords and RecordRetry).
	SpoolDir string
	// SpoolMax bounds the spool files (default frontend.DefaultSpoolMax).
	SpoolMax int64
	// LogAddresses is how log lines show addresses and Message-IDs
	// (default frontend.PrivacyHash).
	LogAddresses frontend.Privacy
	// LookupTimeout bounds all ledger lookups for one bounce (default 200 ms).
	LookupTimeout time.Duration
	// WriteTimeout bounds one ledger write (default 5 s).
	WriteTimeout time.Duration
	// RecordRetry is how long a failed outbound record is retried, with
	// backoff, before it is given up (default 10 minutes). A negative value
	// disables retries.
	RecordRetry time.Duration
	// MaxPendingRecords bounds outbound records being written at once
	// (default 4096); beyond that a record is dropped, logged and counted.
	MaxPendingRecords int
	// IdleTimeout closes a milter connection that sends nothing for this
	// long (default 6 minutes). Postfix keeps one connection per SMTP
	// session, silent while smtpd waits for its client: longer than
	// smtpd_timeout (300 s), so that a slow client's message still reaches
	// the milter. A connection that has not begun the milter negotiation
	// is closed after HandshakeTimeout.
	IdleTimeout time.Duration
	// MaxConnections bounds the milter connections open at once (default
	// 200: Postfix's smtpd and cleanup processes, 100 each by
	// default_process_limit). One more is closed at once, and Postfix
	// applies milter_default_action to its SMTP session.
	MaxConnections int
	// ListenAllow are the networks whose clients may connect over TCP
	// (empty: any client that can reach the socket). Others are closed at
	// once, logged and counted.
	ListenAllow []netip.Prefix
	// BufferBudget bounds the message bytes held in memory by all sessions
	// at once (default frontend.DefaultBufferBudget); past it a message
	// passes unread, its X-NDR-* fields still removed.
	BufferBudget int64
	// Actions are changes to a message the milter asks Postfix to allow
	// besides its own (adding, changing and deleting header fields,
	// replacing the body, quarantine): gomilter.OptChangeFrom,
	// OptAddRcpt and OptRemoveRcpt for a feature that rewrites the
	// envelope. They are negotiated on each new milter connection.
	Actions gomilter.OptAction

	site decide.Site // Domains and TrustedNetworks, set by withDefaults
}

// Defaults of the connection limits.
const (
	// DefaultIdleTimeout is Config.IdleTimeout when none is given.
	DefaultIdleTimeout = 6 * time.Minute
	// DefaultMaxConnections is Config.MaxConnections when none is given.
	DefaultMaxConnections = 200
	// HandshakeTimeout closes a connection that has not sent its first
	// packet (Postfix sends the option negotiation as soon as it connects).
	HandshakeTimeout = 10 * time.Second
)

// DefaultTrustedNetworks are the networks whose clients send outbound mail
// when no other list is configured.
var DefaultTrustedNetworks = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("::1/128"),
}

func (c Config) withDefaults() Config {
	if c.TrustedNetworks == nil {
		c.TrustedNetworks = DefaultTrustedNetworks
	}
	if c.ParseCap <= 0 {
		c.ParseCap = frontend.DefaultParseCap
	}
	if c.RecordWait == 0 {
		c.RecordWait = frontend.DefaultRecordWait
	}
	if c.LogAddresses == "" {
		c.LogAddresses = frontend.PrivacyHash
	}
	if c.LookupTimeout <= 0 {
		c.LookupTimeout = frontend.DefaultLookupTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = frontend.DefaultWriteTimeout
	}
	if c.RecordRetry == 0 {
		c.RecordRetry = frontend.DefaultRecordRetry
	}
	if c.MaxPendingRecords <= 0 {
		c.MaxPendingRecords = frontend.DefaultMaxPendingRecords
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.BufferBudget <= 0 {
		c.BufferBudget = frontend.DefaultBufferBudget
	}
	c.site = decide.NewSite(c.Domains, c.TrustedNetworks)
	c.Domains = c.site.Domains
	return c
}

func (c Config) validate() error {
	if _, err := decide.ParseAction(string(c.BackscatterAction)); err != nil {
		return err
	}
	if _, err := frontend.ParsePrivacy(string(c.LogAddresses)); err != nil {
		return err
	}
	return nil
}

// recordPolicy is how outbound records are written.
func (c *Config) recordPolicy() frontend.RecordPolicy {
	return frontend.RecordPolicy{Wait: c.RecordWait, WriteTimeout: c.WriteTimeout, Retry: c.RecordRetry}
}

// policy is the part of the configuration the decision reads.
func (c *Config) policy() decide.Policy {
	return decide.Policy{
		BackscatterAction:   c.BackscatterAction,
		MaxRecipientHeaders: c.MaxRecipientHeaders,
		SubjectTag:          c.SubjectTag,
		BodySummary:         c.BodySummary,
	}
}
