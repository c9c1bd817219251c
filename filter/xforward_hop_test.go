package filter

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// scriptedHop is a next hop that offers PIPELINING and XFORWARD, answers
// XFORWARD as told, accepts everything else, and notes what it got.
type scriptedHop struct {
	addr          string
	xforwardReply string // the reply to XFORWARD, lines separated by "\n"
	mu            sync.Mutex
	commands      []string
	mailPipelined bool // MAIL had arrived by the time XFORWARD was read
	messages      int
}

func startScriptedHop(t *testing.T, xforwardReply string) *scriptedHop {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h := &scriptedHop{addr: ln.Addr().String(), xforwardReply: xforwardReply}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go h.serve(c)
		}
	}()
	return h
}

func (h *scriptedHop) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	reply := func(lines string) {
		ls := strings.Split(lines, "\n")
		var b strings.Builder
		for i, l := range ls {
			sep := "-"
			if i == len(ls)-1 {
				sep = " "
			}
			b.WriteString(l[:3] + sep + l[3:] + "\r\n")
		}
		c.Write([]byte(b.String()))
	}
	reply("220hop.example.org ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		h.mu.Lock()
		h.commands = append(h.commands, line)
		if verb == "XFORWARD" {
			if b, _ := r.Peek(r.Buffered()); strings.Contains(string(b), "MAIL FROM:") {
				h.mailPipelined = true
			}
		}
		h.mu.Unlock()
		switch verb {
		case "EHLO":
			reply("250hop.example.org\n250PIPELINING\n250XFORWARD NAME ADDR PORT PROTO HELO IDENT SOURCE\n2508BITMIME")
		case "XFORWARD":
			reply(h.xforwardReply)
		case "DATA":
			reply("354 go ahead")
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
			}
			h.mu.Lock()
			h.messages++
			h.mu.Unlock()
			reply("250 2.0.0 Ok: queued as 4HOP000001")
		case "QUIT":
			reply("221 2.0.0 Bye")
			return
		default:
			reply("250 2.0.0 Ok")
		}
	}
}

// XFORWARD goes to a next hop that offers PIPELINING in the same write as
// the MAIL after it; whether the next hop takes it or refuses it (in a
// multi-line reply), the transaction goes on and the client gets the next
// hop's replies.
func TestXForwardPipelinedWithMail(t *testing.T) {
	for _, tc := range []struct{ name, reply string }{
		{"taken", "250 2.0.0 Ok"},
		{"refused", "550 5.7.0 Error:\n550 5.7.0 insufficient authorization"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hop := startScriptedHop(t, tc.reply)
			_, addr := startFilter(t, Config{Next: hop.addr}, nil)
			r := dialRaw(t, addr)
			r.must(250, "EHLO mx.example.org")
			r.must(250, "XFORWARD ADDR=203.0.113.25 PROTO=ESMTP SOURCE=REMOTE")
			r.must(250, "MAIL FROM:<bob@remote.example>")
			r.must(250, "RCPT TO:<alice@example.org>")
			if code, text := r.data(plain("bob@remote.example", "alice@example.org", "pipelined.1@remote.example")); code != 250 ||
				!strings.Contains(text, "queued as 4HOP000001") {
				t.Fatalf("end of data: %d %s, want the next hop's 250 ... queued as 4HOP000001", code, text)
			}
			// A second transaction on the connection, without XFORWARD.
			r.must(250, "MAIL FROM:<carol@remote.example>")
			r.must(250, "RCPT TO:<alice@example.org>")
			if code, text := r.data(plain("carol@remote.example", "alice@example.org", "pipelined.2@remote.example")); code != 250 {
				t.Fatalf("second message: %d %s", code, text)
			}
			r.must(221, "QUIT")

			hop.mu.Lock()
			defer hop.mu.Unlock()
			var xf []string
			for _, c := range hop.commands {
				if strings.HasPrefix(c, "XFORWARD") {
					xf = append(xf, c)
				}
			}
			if len(xf) != 1 || !strings.Contains(xf[0], "ADDR=203.0.113.25") {
				t.Errorf("next hop got XFORWARD %q, want one with ADDR=203.0.113.25 (the second transaction has none)", xf)
			}
			if !hop.mailPipelined {
				t.Errorf("next hop got XFORWARD without the MAIL after it: not pipelined")
			}
			if hop.messages != 2 {
				t.Errorf("next hop got %d messages, want 2; commands %q", hop.messages, hop.commands)
			}
		})
	}
}

// The attributes go on as XFORWARD commands of at most 512 octets with
// their line ending (RFC 5321 section 4.5.3.1.4), in xforwardNames' order,
// only those the next hop offers, "+" and "=" in values as xtext (RFC 3461).
func TestXForwardCommandsStayWithinTheLineLimit(t *testing.T) {
	var x xforward
	long := strings.Repeat("h", 240)
	if err := x.update("NAME=" + long + ".example ADDR=192.0.2.7 HELO=" + long + " PROTO=ESMTP"); err != nil {
		t.Fatal(err)
	}
	if err := x.update("IDENT=4A+2Bb+3Dc SOURCE=REMOTE"); err != nil {
		t.Fatal(err)
	}
	cmds, n := x.appendCommands([]byte("kept"), []string{"name", "ADDR", "HELO", "IDENT", "SOURCE", "PORT"})
	if !strings.HasPrefix(string(cmds), "kept") {
		t.Fatalf("commands did not append to what was there: %q", cmds)
	}
	lines := strings.SplitAfter(strings.TrimPrefix(string(cmds), "kept"), "\r\n")
	lines = lines[:len(lines)-1] // after the last CRLF
	if len(lines) != n || n < 2 {
		t.Fatalf("%d commands counted, %d written, want at least 2 (two values of 240 octets): %q", n, len(lines), lines)
	}
	var attrs []string
	for _, l := range lines {
		if len(l) > 512 || !strings.HasPrefix(l, "XFORWARD ") || !strings.HasSuffix(l, "\r\n") {
			t.Fatalf("command of %d octets: %.80q", len(l), l)
		}
		attrs = append(attrs, strings.Fields(strings.TrimPrefix(l, "XFORWARD "))...)
	}
	want := []string{"NAME=" + long + ".example", "ADDR=192.0.2.7", "PORT=[UNAVAILABLE]", "HELO=" + long,
		"IDENT=4A+2Bb+3Dc", "SOURCE=REMOTE"}
	if strings.Join(attrs, " ") != strings.Join(want, " ") {
		t.Fatalf("attributes passed on:\n%q\nwant\n%q", attrs, want)
	}
	var none xforward
	if cmds, n := none.appendCommands(nil, []string{"ADDR"}); n != 0 || len(cmds) != 0 {
		t.Fatalf("commands without XFORWARD received: %q", cmds)
	}
}
