package filter

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// The replies to a group of pipelined commands (RFC 2920: Postfix sends
// XFORWARD, MAIL, RCPT and DATA in one write) leave in one write, once the
// last one is known, and a reply never waits for a command that has not
// come whole: a client that sends a command and waits gets its reply.
func TestRepliesToAPipelinedGroupLeaveTogether(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr}, nil)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(nc)
	readReply := func() string {
		t.Helper()
		var b strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading a reply: %v (so far %q)", err, b.String())
			}
			b.WriteString(line)
			if len(line) < 4 || line[3] != '-' {
				return b.String()
			}
		}
	}
	readReply() // greeting
	nc.Write([]byte("EHLO mx.example.org\r\n"))
	readReply()

	// A group: all five replies are in the first read's bytes.
	nc.Write([]byte("XFORWARD NAME=mx.remote.example ADDR=203.0.113.25\r\nXFORWARD IDENT=4GROUP1 SOURCE=REMOTE\r\n" +
		"MAIL FROM:<carol@remote.example>\r\nRCPT TO:<alice@example.org>\r\nDATA\r\n"))
	buf := make([]byte, 4096)
	n, err := nc.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	got := string(buf[:n])
	codes := []string{"250 ", "250 ", "250 ", "250 ", "354 "}
	lines := strings.SplitAfter(strings.TrimSuffix(got, "\r\n"), "\r\n")
	if len(lines) != len(codes) {
		t.Fatalf("first read of the replies to a pipelined group: %q, want %d replies in one write", got, len(codes))
	}
	for i, c := range codes {
		if !strings.HasPrefix(lines[i], c) {
			t.Fatalf("reply %d to the group: %q, want %q...", i+1, lines[i], c)
		}
	}
	nc.Write([]byte("Subject: lunch\r\n\r\nnoon?\r\n.\r\n"))
	if rep := readReply(); !strings.HasPrefix(rep, "250 ") {
		t.Fatalf("reply to the end of data: %q", rep)
	}

	// Commands sent one at a time, the next one only after its reply: each
	// reply comes, although part of the next command is there already.
	nc.Write([]byte("MAIL FROM:<carol@remote.example>\r\nRCPT TO:<alice@exa"))
	if rep := readReply(); !strings.HasPrefix(rep, "250 ") {
		t.Fatalf("reply to MAIL with a command cut short after it: %q", rep)
	}
	nc.Write([]byte("mple.org>\r\n"))
	if rep := readReply(); !strings.HasPrefix(rep, "250 ") {
		t.Fatalf("reply to RCPT: %q", rep)
	}
	nc.Write([]byte("RSET\r\nNOOP\r\n"))
	for _, cmd := range []string{"RSET", "NOOP"} {
		if rep := readReply(); !strings.HasPrefix(rep, "250 ") {
			t.Fatalf("reply to pipelined %s: %q", cmd, rep)
		}
	}
	nc.Write([]byte("QUIT\r\n"))
	if rep := readReply(); !strings.HasPrefix(rep, "221 ") {
		t.Fatalf("reply to QUIT: %q", rep)
	}
}
