package dsn

import "testing"

// TestRelayedFromNeedsTheWrittenDomainsServerAndAnotherDomain: a report
// shows a forward by its route only when the server of the one address
// written sent the message on to another domain; several addresses
// written, the sender's own domain, routing of one mailbox, or a named
// Original-Recipient equal to the address say nothing.
func TestRelayedFromNeedsTheWrittenDomainsServerAndAnotherDomain(t *testing.T) {
	base := func() *Report {
		return &Report{
			ReportingMTA: "mx1.club.example",
			Original:     Original{From: "a@sender.example", To: "Bo <bo@club.example>"},
		}
	}
	for _, c := range []struct {
		name  string
		edit  func(r *Report, rc *Recipient)
		final string
		want  string
	}{
		{"forwarded", func(*Report, *Recipient) {}, "robert@mail.example.net", "bo@club.example"},
		{"by the last Received when no Reporting-MTA", func(r *Report, _ *Recipient) {
			r.ReportingMTA = ""
			r.Original.Received = []string{"from out.sender.example ([192.0.2.1]) by relay.club.example with esmtp id 1; Mon, 30 Nov 2026 10:00:00 +0000"}
		}, "x@mail.example.net", "bo@club.example"},
		{"two addresses written", func(r *Report, _ *Recipient) { r.Original.To = "bo@club.example, cy@club.example" }, "x@mail.example.net", ""},
		{"the sender's own server", func(r *Report, _ *Recipient) {
			r.ReportingMTA = "smtp.sender.example"
			r.Original.To = "team@sender.example"
		}, "x@mail.example.net", ""},
		{"another domain's report", func(r *Report, _ *Recipient) { r.ReportingMTA = "smtp.isp.example" }, "x@mail.example.net", ""},
		{"the address written failed", func(*Report, *Recipient) {}, "bo@club.example", ""},
		{"a subdomain of the written domain", func(*Report, *Recipient) {}, "bob@hosted.club.example", ""},
		{"the same mailbox elsewhere", func(*Report, *Recipient) {}, "bo@club.mail.example.net", ""},
		{"Original-Recipient says the same address", func(_ *Report, rc *Recipient) { rc.OriginalRecipient = rc.Address }, "x@mail.example.net", "bo@club.example"},
		{"no sender", func(r *Report, _ *Recipient) { r.Original.From = "" }, "x@mail.example.net", ""},
	} {
		r := base()
		rc := Recipient{Address: c.final}
		c.edit(r, &rc)
		if got := r.RelayedFrom(&rc); got != c.want {
			t.Errorf("%s: RelayedFrom %q, want %q", c.name, got, c.want)
		}
	}
}
