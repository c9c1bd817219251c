package filter

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Outbound mail (a trusted client) to one of our users loses the X-NDR-*
// fields it brings, however large its header; mail to other domains only
// keeps them.
func TestNDRFieldsRemovedFromOutboundMailToOurUsers(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	_, addr := startFilter(t, Config{Next: k.addr}, l)
	c := client(t, addr) // 127.0.0.1: trusted, outbound
	forged := []string{"X-NDR-Backscatter: no; evidence=message-id", "x-ndr-owner: none"}
	msg := plain("alice@example.org", "bob@example.org", "to-bob.1@example.org", forged...)
	must(t, sendMail(c, "alice@example.org", []string{"bob@example.org"}, bytes.NewReader(msg)))
	if got, want := k.messages()[0].data, plain("alice@example.org", "bob@example.org", "to-bob.1@example.org"); !bytes.Equal(got, want) {
		t.Fatalf("outbound to our user:\n%s\nwant the X-NDR-* fields removed, nothing else changed:\n%s", got, want)
	}
	waitRecorded(t, l, "to-bob.1@example.org")

	out := plain("alice@example.org", "x@remote.example", "to-x.1@example.org", forged...)
	must(t, sendMail(c, "alice@example.org", []string{"x@remote.example"}, bytes.NewReader(out)))
	if got := k.messages()[1].data; !bytes.Equal(got, out) {
		t.Fatalf("outbound to other domains only changed:\n%s", got)
	}

	// A header too large to hold streams through, its X-NDR-* fields left out.
	var in, want bytes.Buffer
	add := func(line string, keep bool) {
		in.WriteString(line)
		if keep {
			want.WriteString(line)
		}
	}
	add("X-NDR-Owner: sender\r\n", false)
	for i := 0; in.Len() < maxHeaderBytes+100<<10; i++ {
		add(fmt.Sprintf("X-Filler-%d: %s\r\n", i, strings.Repeat("f", 900)), true)
		if i%500 == 0 {
			add("X-NDR-Backscatter: no\r\n", false)
		}
	}
	add("Message-ID: <big.1@example.org>\r\nSubject: big header\r\n\r\nbody\r\n", true)
	must(t, sendMail(c, "alice@example.org", []string{"bob@example.org"}, bytes.NewReader(in.Bytes())))
	if got := k.messages()[2].data; !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("outbound with a huge header to our user: %d bytes delivered, want %d; X-NDR fields left: %d",
			len(got), want.Len(), bytes.Count(got, []byte("X-NDR-")))
	}
}
