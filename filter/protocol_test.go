package filter

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// The end-of-data detector stops exactly where go-smtp's data reader does,
// whatever the chunking: after "\r\n.\r\n" (or "." first), never at a
// stuffed "..", a bare-LF ".\n" or a "\r\r\n.".
func TestDotScanMatchesGoSMTP(t *testing.T) {
	for _, tc := range []struct {
		in   string
		end  int // bytes up to and including the terminator; -1: none
		name string
	}{
		{"hello\r\n.\r\nQUIT\r\n", len("hello\r\n.\r\n"), "plain"},
		{".\r\nMAIL", 3, "empty message"},
		{"a\r\n..\r\nb\r\n.\r\n", len("a\r\n..\r\nb\r\n.\r\n"), "stuffed dot"},
		{"a\n.\nb\r\n.\r\n", len("a\n.\nb\r\n.\r\n"), "bare LF"},
		{"a\r\r\n.\r\nb\r\n.\r\n", len("a\r\r\n.\r\nb\r\n.\r\n"), "CR CR LF"},
		{"a\r\n.x\r\n.\r\n", len("a\r\n.x\r\n.\r\n"), "dot then text"},
		{"no end\r\n", -1, "unterminated"},
	} {
		for _, step := range []int{1, 2, 3, 7, 1 << 20} {
			var d dotState
			got := -1
			for off := 0; off < len(tc.in); {
				b := []byte(tc.in[off:min(len(tc.in), off+step)])
				n, end := d.scan(b)
				off += n
				if end {
					got = off
					break
				}
			}
			if got != tc.end {
				t.Errorf("%s, in steps of %d: end at %d, want %d", tc.name, step, got, tc.end)
			}
		}
	}
}

// Header parsing keeps every byte: a message without an empty line, with
// bare LF, with a body line where the header should go on, or a header cut
// by the end of the message goes out as it came, X-NDR-* fields removed.
func TestHeaderEdgeCases(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound}, nil)
	c := client(t, addr)
	for _, tc := range []struct{ name, in, want string }{
		{"bare LF", "Subject: x\nX-NDR-Owner: none\nFrom: a@b\n\nbody\n", "Subject: x\r\nFrom: a@b\r\n\r\nbody\r\n"},
		{"no empty line", "Subject: x\r\nX-NDR-Owner: none\r\nthis is body text\r\nX-NDR-Owner: in the body\r\n",
			"Subject: x\r\nthis is body text\r\nX-NDR-Owner: in the body\r\n"},
		{"header only", "Subject: x\r\nX-NDR-Status:\r\n folded forged\r\n", "Subject: x\r\n"},
		{"space before colon", "X-NDR-Owner : none\r\nSubject: y\r\n\r\nb\r\n", "Subject: y\r\n\r\nb\r\n"},
		{"continuation first", " folded\r\nSubject: z\r\n\r\n", " folded\r\nSubject: z\r\n\r\n"},
	} {
		must(t, sendMail(c, "bob@remote.example", []string{"alice@example.org"}, strings.NewReader(tc.in)))
		msgs := k.messages()
		if got := string(msgs[len(msgs)-1].data); got != tc.want {
			t.Errorf("%s: delivered %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A header too large to hold (over 1 MiB) passes unannotated, its X-NDR-*
// fields removed before and after the point where holding stopped.
func TestOversizeHeader(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound}, nil)
	c := client(t, addr)
	var in, want bytes.Buffer
	add := func(line string, keep bool) {
		in.WriteString(line)
		if keep {
			want.WriteString(line)
		}
	}
	add("X-NDR-Backscatter: no\r\n", false)
	for i := 0; in.Len() < maxHeaderBytes+200<<10; i++ {
		add(fmt.Sprintf("X-Filler-%d: %s\r\n\t%s\r\n", i, strings.Repeat("f", 500), strings.Repeat("g", 400)), true)
		if i%700 == 0 {
			add("X-NDR-Owner: sender\r\n\tfolded forged line\r\n", false)
		}
	}
	add("Subject: big header\r\n\r\nX-NDR-Owner: in the body stays\r\n", true)
	must(t, sendMail(c, "", []string{"alice@example.org"}, bytes.NewReader(in.Bytes())))
	got := k.messages()[0].data
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("oversize header: %d bytes delivered, want %d; X-NDR-Owner fields left in the header: %d",
			len(got), want.Len(), bytes.Count(got[:bytes.Index(got, []byte("\r\n\r\n"))], []byte("X-NDR-")))
	}
}

// Pipelined XFORWARD, MAIL and RCPT get their replies in order; a BDAT
// chunk (CHUNKING is not offered, but a client may send it anyway) passes
// through untouched, an XFORWARD line inside it included.
func TestPipeliningAndBDAT(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr}, nil)
	nc, err := net.Dial("tcp", addr)
	must(t, err)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(nc)
	reply := func() string {
		var all string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading a reply: %v (so far %q)", err, all)
			}
			all += line
			if len(line) >= 4 && line[3] == ' ' {
				return all
			}
		}
	}
	reply() // greeting
	io.WriteString(nc, "EHLO client.example.net\r\n")
	if ehlo := reply(); strings.Contains(ehlo, "CHUNKING") || !strings.Contains(ehlo, "XFORWARD") || !strings.Contains(ehlo, "PIPELINING") {
		t.Fatalf("EHLO reply:\n%s", ehlo)
	}
	io.WriteString(nc, "XFORWARD ADDR=203.0.113.25\r\nMAIL FROM:<bob@remote.example>\r\nRCPT TO:<alice@example.org>\r\nRCPT TO:<carol@example.org>\r\n")
	for i, want := range []string{"250 2.0.0 Ok", "250 2.0.0 Roger", "250 2.0.0 I'll make sure <alice", "250 2.0.0 I'll make sure <carol"} {
		if got := reply(); !strings.HasPrefix(got, want) {
			t.Fatalf("pipelined reply %d: %q, want %q...", i, got, want)
		}
	}
	msg := "Subject: chunked\r\n\r\nXFORWARD ADDR=10.9.9.9\r\n.\r\nend\r\n"
	fmt.Fprintf(nc, "BDAT %d LAST\r\n%s", len(msg), msg)
	if got := reply(); !strings.HasPrefix(got, "250 ") {
		t.Fatalf("BDAT: %q", got)
	}
	io.WriteString(nc, "QUIT\r\n")
	reply()
	msgs := k.messages()
	if len(msgs) != 1 || string(msgs[0].data) != msg {
		t.Fatalf("BDAT message delivered as %q, want %q", msgs[0].data, msg)
	}
}
