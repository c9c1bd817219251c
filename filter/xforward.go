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
var xforwardNames = []string{"NAME", "ADDR", "PORT", "PROTO", "HELO", "IDENT", "SOURCE"}

// xforwardKeyword is the EHLO keyword the filter announces to trusted clients.
var xforwardKeyword = "XFORWARD " + strings.Join(xforwardNames, " ")

// unavailable is the attribute value that says the upstream does not know.
const unavailable = "[UNAVAILABLE]"

// maxXForwardValue bounds one attribute value (XFORWARD_README, note 1).
const maxXForwardValue = 255

// xforward is the XFORWARD attribute set of a transaction. The zero value
// is "no XFORWARD received": the connection's own attributes apply.
type xforward struct {
	set   bool              // an XFORWARD command was accepted
	attrs map[string]string // upper-case name -> decoded value
}

// update applies one XFORWARD command's arguments ("NAME=value ..."),
// validating all of them before changing anything. The first accepted
// command sets every attribute to [UNAVAILABLE] (XFORWARD_README, server
// operation).
func (x *xforward) update(args string) error {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return fmt.Errorf("expected NAME=value attributes, got none")
	}
	parsed := make(map[string]string, len(fields))
	for _, f := range fields {
		name, raw, ok := strings.Cut(f, "=")
		name = strings.ToUpper(name)
		if !ok || !knownXForward(name) {
			return fmt.Errorf("bad XFORWARD attribute name: %.64s", name)
		}
		v, err := xtextDecode(raw)
		if err != nil || len(v) > maxXForwardValue || !xforwardValueOK(v) {
			return fmt.Errorf("bad XFORWARD attribute value for %s", name)
		}
		if strings.EqualFold(v, unavailable) {
			v = unavailable
		}
		parsed[name] = v
	}
	if !x.set {
		x.set = true
		x.attrs = make(map[string]string, len(xforwardNames))
		for _, n := range xforwardNames {
			x.attrs[n] = unavailable
		}
	}
	for n, v := range parsed {
		x.attrs[n] = v
	}
	return nil
}

// value returns the attribute's value, "" when it was not forwarded or is
// [UNAVAILABLE].
func (x *xforward) value(name string) string {
	if v := x.attrs[name]; v != unavailable {
		return v
	}
	return ""
}

// addr is the forwarded client address (ADDR, with or without the IPv6:
// prefix), when there is one.
func (x *xforward) addr() (netip.Addr, bool) {
	v := x.value("ADDR")
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
	return strings.EqualFold(x.value("SOURCE"), "LOCAL")
}

// commands returns the XFORWARD commands that pass the attributes on to a
// next hop that announced the names in offered, each within the 512-octet
// command limit (RFC 5321 section 4.5.3.1.4).
func (x *xforward) commands(offered []string) []string {
	if !x.set {
		return nil
	}
	var cmds []string
	line := ""
	for _, n := range xforwardNames {
		if !containsFold(offered, n) {
			continue
		}
		arg := n + "=" + xtextEncode(x.attrs[n])
		if line != "" && len(line)+1+len(arg) > 500 {
			cmds = append(cmds, line)
			line = ""
		}
		if line == "" {
			line = "XFORWARD " + arg
		} else {
			line += " " + arg
		}
	}
	if line != "" {
		cmds = append(cmds, line)
	}
	return cmds
}

func knownXForward(name string) bool {
	for _, n := range xforwardNames {
		if n == name {
			return true
		}
	}
	return false
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

// xtextEncode encodes s as RFC 3461 xtext: "+", "=" and characters outside
// "!".."~" as +XX.
func xtextEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '!' || c > '~' || c == '+' || c == '=' {
			fmt.Fprintf(&b, "+%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
