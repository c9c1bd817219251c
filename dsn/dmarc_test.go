package dsn

import "testing"

func TestADMARCAggregateReportIsNamedButIsNoBounce(t *testing.T) {
	for name, raw := range map[string][]byte{
		"subject of RFC 7489 7.2.1.2": rawMessage("From: dmarc-noreply@receiver.example\nTo: rua@example.org\nSubject: Report Domain: example.org Submitter: receiver.example Report-ID: <20240711.ab12@receiver.example>\n",
			"This is a DMARC aggregate report for example.org.\n"),
		"file name of RFC 7489 7.2.1.1 only": rawMessage("From: reports@mailer.example\nTo: rua@example.org\nSubject: DMARC summary\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n",
			"--b\nContent-Type: text/plain\n\nSee the attachment.\n--b\nContent-Type: application/gzip\nContent-Disposition: attachment; filename=\"mailer.example!example.org!1720656000!1720742399!77.xml.gz\"\nContent-Transfer-Encoding: base64\n\nH4sIAAAAAAAAAwMAAAAAAAAAAAA=\n--b--\n"),
	} {
		r := mustParse(t, raw)
		if r.Kind != KindNone || r.Format != FormatDMARCAggregate {
			t.Errorf("%s: kind %q format %q, want kind none, format %q", name, r.Kind, r.Format, FormatDMARCAggregate)
		}
	}
}

func TestMailThatOnlyMentionsAReportIsNoDMARCReport(t *testing.T) {
	for name, raw := range map[string][]byte{
		"a person's subject": rawMessage("From: ann@example.org\nTo: bob@example.net\nSubject: Report domain: which one do we renew?\n", "Hi Bob\n"),
		"a zip of another name": rawMessage("From: ann@example.org\nTo: bob@example.net\nSubject: files\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n",
			"--b\nContent-Type: text/plain\n\nHere.\n--b\nContent-Type: application/zip; name=\"photos!summer!2024.zip\"\n\nUEsDBA==\n--b--\n"),
	} {
		if r := mustParse(t, raw); r.Format == FormatDMARCAggregate {
			t.Errorf("%s: read as a DMARC aggregate report", name)
		}
	}
}
