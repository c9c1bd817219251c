//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"mime"
	"strings"
	"testing"
)

// With --language de, or with --language auto for a message written in
// German (Content-Language: de), the bounce of a message sent from here
// reaches the mailbox through Postfix with its X-NDR-Explanation and
// Subject tag in German: RFC 2047 encoded words, folded so that no line of
// the header is over 78 octets, and ASCII on the wire.
func TestE2EExplanationInGermanThroughPostfix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, language, originalHeader string
	}{
		{"language de", "de", ""},
		{"language auto, original in German", "auto", "Content-Language: de\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			germanExplanationThroughPostfix(t, c.language, c.originalHeader)
		})
	}
}

func germanExplanationThroughPostfix(t *testing.T, lang, originalHeader string) {
	env := newE2EEnv(t, withTrustedHost("--language", lang, "--subject-tag"))
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("to-bob-de")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "an Bob")); err != nil {
		t.Fatalf("send: %v", err)
	}
	s.Quit()
	env.Await("<"+id+">", withMessageID(id))

	in := env.Postfix.Dial(t, internetIP)
	msg := remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown in virtual mailbox table", "")
	// The original's header, as the bounce quotes it (text/rfc822-headers).
	msg = strings.Replace(msg, "\nSubject: report\n", "\nSubject: report\n"+originalHeader, 1)
	if err := in.Send("", []string{alice}, msg); err != nil {
		t.Fatalf("send the bounce: %v", err)
	}
	in.Quit()
	m := env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))

	dec := new(mime.WordDecoder)
	expl := m.HeaderValues("X-NDR-Explanation")
	if len(expl) != 1 {
		t.Fatalf("X-NDR-Explanation = %q, want one", expl)
	}
	if !strings.Contains(expl[0], "=?utf-8?") {
		t.Errorf("X-NDR-Explanation %q has no encoded word", expl[0])
	}
	text, err := dec.DecodeHeader(expl[0])
	if err != nil {
		t.Fatalf("X-NDR-Explanation %q does not decode: %v", expl[0], err)
	}
	t.Logf("X-NDR-Explanation, decoded: %s", text)
	for _, want := range []string{"bob@remote.test: Die Nachricht an bob@remote.test wurde", "abgelehnt, weil es diese Adresse dort nicht gibt", "Prüfen Sie die Adresse auf Tippfehler und bestätigen Sie sie mit dem Empfänger auf anderem Weg"} {
		if !strings.Contains(text, want) {
			t.Errorf("X-NDR-Explanation decodes to %q, want it to hold %q", text, want)
		}
	}
	subject, err := dec.DecodeHeader(strings.Join(m.HeaderValues("Subject"), " "))
	if err != nil || !strings.HasPrefix(subject, "[Unzustellbar: Adresse existiert nicht] Undelivered Mail") {
		t.Errorf("Subject decodes to %q (%v), want the German tag before the original subject", subject, err)
	}
	// The machine-readable headers stay as they are in every language.
	if own := m.HeaderValues("X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
		t.Errorf("X-NDR-Owner = %q, want sender", own)
	}

	// On the wire: every header line ASCII and at most 78 octets.
	header, _, _ := bytes.Cut(bytes.ReplaceAll(m.Data, []byte("\r\n"), []byte("\n")), []byte("\n\n"))
	sc := bufio.NewScanner(bytes.NewReader(header))
	inOurs, checked := false, 0
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			inOurs = strings.HasPrefix(line, "X-NDR-") || strings.HasPrefix(line, "Subject:")
		}
		if !inOurs {
			continue
		}
		checked++
		if len(line) > 78 {
			t.Errorf("header line of %d octets: %q", len(line), line)
		}
		for i := 0; i < len(line); i++ {
			if line[i] >= 0x80 {
				t.Errorf("header line not ASCII: %q", line)
				break
			}
		}
	}
	if checked < 4 {
		t.Errorf("only %d lines of X-NDR-* and Subject fields in the header:\n%s", checked, header)
	}
}
