package dsn

import (
	"strings"
	"testing"
)

// TestPrefilters checks the cheap tests that let the scanners skip work
// against the lists they stand for.
func TestPrefilters(t *testing.T) {
	for _, intro := range replyIntros {
		if !strings.HasSuffix(intro, "was:") {
			t.Errorf("reply intro %q does not end in \"was:\", which serverReply's prefilter requires", intro)
		}
	}
	for _, c := range []struct {
		d    string
		want string
	}{
		{"The response was: 550 5.1.1 no such user", "550 5.1.1 no such user"},
		{"THE RESPONSE WAS: 550 5.1.1 no such user", "550 5.1.1 no such user"},
		{"Reason: 550 5.1.1 no such user", "Reason: 550 5.1.1 no such user"},
		{"was:", "was:"},
		{":was:", ":was:"},
	} {
		if got := serverReply(nil, c.d); got != c.want {
			t.Errorf("serverReply(%q) = %q, want %q", c.d, got, c.want)
		}
	}
	// wordIndex: a mark is found whatever the case and wherever it is.
	for _, c := range []struct{ d, want string }{
		{"550 5.1.1 User unknown (in reply to RCPT TO command)", "RCPT"},
		{"SMTP error from remote mail server AFTER END OF DATA: 554", "DATA"},
		{"x>>> DATA", "DATA"},
		{"550 denied", ""},
		{"a", ""},
		{"", ""},
	} {
		if got := findCommand(c.d); got != c.want {
			t.Errorf("findCommand(%q) = %q, want %q", c.d, got, c.want)
		}
	}
	for _, c := range []struct{ d, want string }{
		{"host mx.example.org[192.0.2.1] said: 550", "mx.example.org"},
		{"Ghost mx.example.org said; while talking to mx2.example.net.: 550", "mx2.example.net"},
		{"Giving up on 192.0.2.7.", "192.0.2.7"},
		{"no host here", ""},
	} {
		if got := findRemoteHost(c.d); got != c.want {
			t.Errorf("findRemoteHost(%q) = %q, want %q", c.d, got, c.want)
		}
	}
}
