package dsn

import "testing"

// TestLocalizedAutomaticReplyIsAnAutoreply checks that an out-of-office
// notice without an Auto-Submitted field is an auto-reply by the localized
// "Automatic reply:" subject Outlook writes, or by its first sentence, and
// that a person's reply with the same words and no mark stays ordinary mail.
func TestLocalizedAutomaticReplyIsAnAutoreply(t *testing.T) {
	body := "\r\nich bin bis 11.12.2026 nicht im Büro. In dringenden Fällen wenden Sie sich an s.berger@example.org.\r\n"
	tests := []struct {
		name, header string
		want         Kind
	}{
		{"german outlook subject", "Subject: Automatische Antwort: Angebot\r\n", KindAutoreply},
		{"dutch outlook subject", "Subject: Automatisch antwoord: Offerte\r\n", KindAutoreply},
		{"swedish outlook subject", "Subject: Automatiskt svar: Offert\r\n", KindAutoreply},
		{"null sender and a german first sentence", "Subject: Re: Angebot\r\nReturn-Path: <>\r\n", KindAutoreply},
		{"a person's reply", "Subject: Re: Angebot\r\n", KindNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "From: Sabine <s.hofer@example.net>\r\nTo: a@example.com\r\n" + tt.header + "Content-Type: text/plain; charset=utf-8\r\n" + body
			rep, err := Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Kind != tt.want {
				t.Errorf("kind %s, want %s", rep.Kind, tt.want)
			}
		})
	}
}
