package milter

import (
	"net/netip"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
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
	// RecordWait is how long end of message waits for the ledger to
	// acknowledge an outbound record before letting the message go
	// (default 0: do not wait; the record is written in the background,
	// within one group commit).
	RecordWait time.Duration
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
	// long (default 10 minutes; Postfix keeps one connection per SMTP session).
	IdleTimeout time.Duration
}

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
		c.ParseCap = 2 << 20
	}
	if c.LookupTimeout <= 0 {
		c.LookupTimeout = 200 * time.Millisecond
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 5 * time.Second
	}
	if c.RecordRetry == 0 {
		c.RecordRetry = 10 * time.Minute
	}
	if c.MaxPendingRecords <= 0 {
		c.MaxPendingRecords = 4096
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 10 * time.Minute
	}
	doms := make([]string, 0, len(c.Domains))
	for _, d := range c.Domains {
		if d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), "."); d != "" {
			doms = append(doms, d)
		}
	}
	c.Domains = doms
	return c
}

func (c Config) validate() error {
	if _, err := decide.ParseAction(string(c.BackscatterAction)); err != nil {
		return err
	}
	return nil
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

// ours is the predicate backscatter.Judge wants: nil when every domain is
// ours (no domains configured), else ourAddress.
func (c *Config) ours() func(addr string) bool {
	if len(c.Domains) == 0 {
		return nil
	}
	return c.ourAddress
}

// trusted reports whether ip is in a trusted network.
func (c *Config) trusted(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range c.TrustedNetworks {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ourAddress reports whether addr is in one of our domains or a subdomain
// of one (ledger.InDomains, which the log importer uses too). With no
// domains configured, every address is ours.
func (c *Config) ourAddress(addr string) bool {
	return len(c.Domains) == 0 || ledger.InDomains(addr, c.Domains)
}

// allOurs reports whether there is at least one address and every one is ours.
func (c *Config) allOurs(addrs []string) bool {
	for _, a := range addrs {
		if !c.ourAddress(a) {
			return false
		}
	}
	return len(addrs) > 0
}
