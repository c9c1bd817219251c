package filter

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
)

// Direction says which way the mail through a filter goes.
type Direction string

// Directions.
const (
	// DirectionAuto: outbound when the original client (XFORWARD ADDR
	// from a trusted client, else the connecting address) is in a trusted
	// network or was local to the upstream MTA; inbound otherwise.
	DirectionAuto Direction = "auto"
	// DirectionOutbound: everything is outbound (a filter on the
	// submission service), except a bounce to our own users only.
	DirectionOutbound Direction = "outbound"
	// DirectionInbound: everything is inbound (a filter for mail from the
	// Internet only).
	DirectionInbound Direction = "inbound"
)

// ParseDirection returns the Direction s names, in any case; "" is auto.
func ParseDirection(s string) (Direction, error) {
	switch d := Direction(strings.ToLower(strings.TrimSpace(s))); d {
	case DirectionAuto, DirectionOutbound, DirectionInbound:
		return d, nil
	case "":
		return DirectionAuto, nil
	}
	return "", fmt.Errorf("direction %q: expected auto, outbound or inbound", s)
}

// Config is the filter's behaviour. Next is required; the rest has defaults,
// filled in by New and Reload.
type Config struct {
	// Next is the next hop, HOST:PORT: the MTA's reinjection listener.
	Next string
	// Hostname is the filter's name in its greeting and in its EHLO to the
	// next hop (default: the host name).
	Hostname string
	// Direction is which way the mail goes (default auto).
	Direction Direction
	// Domains are our domains: only bounces to or about addresses in them
	// are judged for backscatter. Empty means every domain is ours.
	Domains []string
	// TrustedNetworks are the client networks whose mail is outbound, and
	// those allowed to send XFORWARD (default 127.0.0.0/8 and ::1).
	TrustedNetworks []netip.Prefix
	// BackscatterAction is what happens to backscatter: tag (default),
	// reject (550 at the end of data: right before the queue, wrong after
	// it) or discard. Quarantine needs the milter.
	BackscatterAction decide.Action
	// ParseCap is how many bytes of a possible bounce are kept for parsing
	// (default frontend.DefaultParseCap); the rest streams through.
	ParseCap int
	// MaxRecipientHeaders caps X-NDR-Status and X-NDR-Explanation headers
	// per message (default 10).
	MaxRecipientHeaders int
	// SubjectTag and BodySummary are as in the milter (off by default:
	// they break DKIM signatures on the bounce).
	SubjectTag  bool
	BodySummary bool
	// Language is as in the milter: the language of what is written into
	// a bounce.
	Language decide.Language
	// RecordWait, SpoolDir, SpoolMax, LookupTimeout, WriteTimeout,
	// RecordRetry, MaxPendingRecords and LogAddresses are as in the milter
	// (see package frontend for the defaults).
	RecordWait        time.Duration
	SpoolDir          string
	SpoolMax          int64
	LookupTimeout     time.Duration
	WriteTimeout      time.Duration
	RecordRetry       time.Duration
	MaxPendingRecords int
	LogAddresses      frontend.Privacy
	// MaxConnections bounds the client connections open at once (default
	// 100, Postfix's default process limit); beyond it a client gets 421.
	MaxConnections int
	// ListenAllow are the networks whose clients may connect (empty: any
	// client that can reach the listener). Others are closed at once,
	// logged and counted.
	ListenAllow []netip.Prefix
	// BufferBudget bounds the message bytes held in memory by all
	// connections at once (default frontend.DefaultBufferBudget); past it
	// a message passes unread, its X-NDR-* fields still removed.
	BufferBudget int64
	// Evidence is the backscatter evidence beyond the ledger's the site
	// turned on, BATV signing included (nil: none), as in the milter.
	Evidence *frontend.Evidence
	// AutoReplyAction is what happens to an automatic reply judged
	// backscatter (default tag; reject is refused).
	AutoReplyAction decide.Action
	// IdleTimeout is how long the filter waits for a client's next command
	// or its next bytes of data (default 5 minutes, RFC 5321 section
	// 4.5.3.2.7).
	IdleTimeout time.Duration
	// NextTimeout bounds the connection to the next hop, each command
	// there, each write of the data, and the wait for its reply at the end
	// of data (default 60 s, below Postfix's 100 s smtpd_proxy_timeout).
	NextTimeout time.Duration

	site decide.Site // Domains and TrustedNetworks, set by withDefaults
}

// DefaultTrustedNetworks are the networks whose clients send outbound mail
// when no other list is configured.
var DefaultTrustedNetworks = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("::1/128"),
}

func (c Config) withDefaults() Config {
	if c.Hostname == "" {
		c.Hostname, _ = os.Hostname()
		if c.Hostname == "" {
			c.Hostname = "localhost"
		}
	}
	if d, err := ParseDirection(string(c.Direction)); err == nil {
		c.Direction = d
	}
	if a, err := decide.ParseAction(string(c.BackscatterAction)); err == nil {
		c.BackscatterAction = a
	}
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
	if c.MaxConnections <= 0 {
		c.MaxConnections = 100
	}
	if c.BufferBudget <= 0 {
		c.BufferBudget = frontend.DefaultBufferBudget
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 5 * time.Minute
	}
	if c.NextTimeout <= 0 {
		c.NextTimeout = 60 * time.Second
	}
	c.site = decide.NewSite(c.Domains, c.TrustedNetworks)
	c.Domains = c.site.Domains
	return c
}

func (c Config) validate() error {
	if _, _, err := net.SplitHostPort(c.Next); err != nil {
		return fmt.Errorf("next hop %q: expected HOST:PORT", c.Next)
	}
	if _, err := ParseDirection(string(c.Direction)); err != nil {
		return err
	}
	a, err := decide.ParseAction(string(c.BackscatterAction))
	if err != nil {
		return err
	}
	if _, err := frontend.ParsePrivacy(string(c.LogAddresses)); err != nil {
		return err
	}
	if a == decide.ActionQuarantine {
		return fmt.Errorf("backscatter action quarantine: an SMTP filter cannot hold a message in the MTA's queue; use tag, reject or discard (or the milter, ndrmilter serve)")
	}
	ar, err := decide.ParseAutoReplyAction(string(c.AutoReplyAction))
	if err != nil {
		return err
	}
	if ar == decide.ActionQuarantine {
		return fmt.Errorf("autoreply backscatter action quarantine: an SMTP filter cannot hold a message in the MTA's queue; use tag or discard (or the milter, ndrmilter serve)")
	}
	if strings.ContainsAny(c.Hostname, " \t\r\n") {
		return fmt.Errorf("hostname %q: expected a host name without white space", c.Hostname)
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
		AutoReplyAction:     c.AutoReplyAction,
		Language:            c.Language,
	}
}

// Check reports whether the configuration is one New accepts.
func (c Config) Check() error { return c.withDefaults().validate() }
