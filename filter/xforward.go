package filter

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// XFORWARD (Postfix's XFORWARD_README) carries the original client's
// attributes through a content filter: Postfix's smtp client sends it to a
// content filter that announces it (smtp_send_xforward_command = yes), and
// Postfix's smtpd sends it to a before-queue proxy. go-smtp's server does
// not implement it, so the filter's connection answers it (conn.go).

// xforwardNames are the attributes the filter accepts and passes on, in the
// order it announces and sends them.
var xforwardNames = [...]string{"NAME", "ADDR", "PORT", "PROTO", "HELO", "IDENT", "SOURCE"}

// Indexes of the attributes the filter reads, in xforwardNames.
const (
	xfADDR   = 1
	xfIDENT  = 5
	xfSOURCE = 6
)

// xforwardKeyword is the EHLO keyword the filter announces to trusted clients.
var xforwardKeyword = "XFORWARD " + strings.Join(xforwardNames[:], " ")

// unavailable is the attribute value that says the upstream does not know.
const unavailable = "[UNAVAILABLE]"

// maxXForwardValue bounds one attribute value (XFORWARD_README, note 1).
const maxXForwardValue = 255

// xforward is the XFORWARD attribute set of a transaction. The zero value
// is "no XFORWARD received": the connection's own attributes apply.
type xforward struct {
	set   bool                       // an XFORWARD command was accepted
	attrs [len(xforwardNames)]string // decoded values, by index in xforwardNames, once set
}

// update applies one XFORWARD command's arguments ("NAME=value ..."),
// validating all of them before changing anything. The first accepted
// command sets every attribute to [UNAVAILABLE] (XFORWARD_README, server
// operation).
func (x *xforward) update(args string) error {
	var parsed [len(xforwardNames)]string
	var given [len(xforwardNames)]bool
	n := 0
	for f := range strings.FieldsSeq(args) {
		n++
		name, raw, ok := strings.Cut(f, "=")
		i := xforwardIndex(name)
		if !ok || i < 0 {
			return fmt.Errorf("bad XFORWARD attribute name: %.64s", strings.ToUpper(name))
		}
		v, err := xtextDecode(raw)
		if err != nil || len(v) > maxXForwardValue || !xforwardValueOK(v) {
			return fmt.Errorf("bad XFORWARD attribute value for %s", xforwardNames[i])
		}
		if strings.EqualFold(v, unavailable) {
			v = unavailable
		}
		parsed[i], given[i] = v, true
	}
	if n == 0 {
		return fmt.Errorf("expected NAME=value attributes, got none")
	}
	if !x.set {
		x.set = true
		for i := range x.attrs {
			x.attrs[i] = unavailable
		}
	}
	for i, g := range given {
		if g {
			x.attrs[i] = parsed[i]
		}
	}
	return nil
}

// value returns the value of attribute i (an index in xforwardNames), ""
// when it was not forwarded or is [UNAVAILABLE].
func (x *xforward) value(i int) string {
	if v := x.attrs[i]; v != unavailable {
		return v
	}
	return ""
}

// addr is the forwarded client address (ADDR, with or without the IPv6:
// prefix), when there is one.
func (x *xforward) addr() (netip.Addr, bool) {
	v := x.value(xfADDR)
	if len(v) > 5 && strings.EqualFold(v[:5], "IPv6:") {
		v = v[5:]
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// local reports whether the forwarded message was submitted locally on the
// upstream MTA (SOURCE=LOCAL: sendmail, pickup, its own bounces).
func (x *xforward) local() bool {
	return strings.EqualFold(x.value(xfSOURCE), "LOCAL")
}

// appendCommands appends to dst the XFORWARD commands, each ending in CRLF,
// that pass the attributes on to a next hop that announced the names in
// offered, each within the 512-octet command limit (RFC 5321 section
// 4.5.3.1.4), and returns the result and the number of commands.
func (x *xforward) appendCommands(dst []byte, offered []string) ([]byte, int) {
	if !x.set {
		return dst, 0
	}
	n := 0
	lineStart := -1 // in dst, of the command being built
	for i, name := range xforwardNames {
		if !containsFold(offered, name) {
			continue
		}
		argLen := len(name) + 1 + xtextLen(x.attrs[i])
		if lineStart >= 0 && len(dst)-lineStart+1+argLen > 500 {
			dst = append(dst, "\r\n"...)
			lineStart = -1
		}
		if lineStart < 0 {
			lineStart = len(dst)
			n++
			dst = append(dst, "XFORWARD "...)
		} else {
			dst = append(dst, ' ')
		}
		dst = append(dst, name...)
		dst = append(dst, '=')
		dst = appendXtext(dst, x.attrs[i])
	}
	if lineStart >= 0 {
		dst = append(dst, "\r\n"...)
	}
	return dst, n
}

// xforwardIndex is the index of the attribute name (any case) in
// xforwardNames, -1 for a name the filter does not know.
func xforwardIndex(name string) int {
	for i, n := range xforwardNames {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

func containsFold(list []string, s string) bool {
	for _, l := range list {
		if strings.EqualFold(l, s) {
			return true
		}
	}
	return false
}

// xforwardValueOK: after decoding, a value has no control characters,
// non-ASCII characters, white space, or characters special in headers
// (XFORWARD_README, note 1), so that it cannot inject anything downstream.
func xforwardValueOK(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || c == '(' || c == ')' || c == '<' || c == '>' || c == ',' || c == ';' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// xtextDecode decodes RFC 3461 section 4 xtext ("+XX" hex escapes).
// Postfix before 2.3 sent values unencoded, which decode to themselves.
func xtextDecode(s string) (string, error) {
	if !strings.Contains(s, "+") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '+' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("xtext %q: incomplete +XX escape", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("xtext %q: bad +XX escape", s)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}

// xtextEncoded reports whether c is written as +XX in xtext (RFC 3461
// section 4): "+", "=" and characters outside "!".."~".
func xtextEncoded(c byte) bool { return c < '!' || c > '~' || c == '+' || c == '=' }

// xtextLen is the length of s encoded as xtext.
func xtextLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if xtextEncoded(s[i]) {
			n += 2
		}
	}
	return n
}

// appendXtext appends s encoded as RFC 3461 xtext to dst.
func appendXtext(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if xtextEncoded(c) {
			dst = append(dst, '+', hex[c>>4], hex[c&0xf])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
