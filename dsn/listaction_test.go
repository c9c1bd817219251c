package dsn

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/message"
)

// TestListBounceNoticeSaysWhatTheListDid: a list's notice about a member's
// bounce keeps what the list did, from Mailman 2.1's "Action:" line or
// Mailman 3's subject, and the list's address from X-BeenThere.
func TestListBounceNoticeSaysWhatTheListDid(t *testing.T) {
	for _, c := range []struct {
		file   string
		action ListAction
		list   string
	}{
		{"mailman-bounce-action-01.eml", ListActionDisabled, "chess@lists.example.org"},
		{"list-bounce-notice-01.eml", ListActionDisabled, ""},
	} {
		r := parseBounceFixture(t, c.file)
		if r.Format != FormatListBounceNotice || r.ListAction != c.action || r.List != c.list {
			t.Errorf("%s: format %q action %q list %q, want %q %q %q", c.file, r.Format, r.ListAction, r.List, FormatListBounceNotice, c.action, c.list)
		}
	}
}

// TestListActionIsReadFromMailman3Subjects: each Mailman 3 notice subject
// (app/notifications.py) gives its action; the more final one wins.
func TestListActionIsReadFromMailman3Subjects(t *testing.T) {
	for subject, want := range map[string]ListAction{
		"Ann <ann@example.net>'s subscription disabled on Hikers":              ListActionDisabled,
		"Ann <ann@example.net>'s bounce score incremented on Hikers":           ListActionCounted,
		"ann@example.net unsubscribed from Hikers mailing list due to bounces": ListActionRemoved,
		"Your subscription for Hikers mailing list has been disabled":          ListActionDisabled,
		"Bounce action notification":                                           "",
	} {
		h, _, _ := message.ReadHeader([]byte("Subject: " + subject + "\r\n\r\n"))
		p := &parser{hdr: h, textDone: true}
		if got := p.listAction(); got != want {
			t.Errorf("%q: action %q, want %q", subject, got, want)
		}
	}
}
