package rules

import (
	"strings"
	"testing"
)

// A URL from a bounce reaches the explanation only when it points to a
// provider's, filter vendor's or block list's page: a forged bounce cannot
// send the user to a page of its choosing through ndrmilter's words.
func TestURLFactOnlyForKnownGuidanceHosts(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://support.google.com/mail/?p=BlockedMessage", true},
		{"https://www.spamhaus.org/query/ip/203.0.113.7", true},
		{"www.spamcop.net/bl.shtml?203.0.113.7", true},
		{"https://learn.microsoft.com/Exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/fix-error-code-550-5-7-1", true},
		{"https://sender.office.com", true},
		{"https://SUPPORT.GOOGLE.COM./mail", true},
		{"https://evil.example/delist", false},
		{"https://google.com.evil.example/", false},
		{"https://notgoogle.com/", false},
		{"https://support.google.com@evil.example/", false},
		{"javascript://google.com/%0aalert(1)", false},
		{"ftp://ftp.spamhaus.org/", false},
		{"http://[::1]/", false},
	} {
		if got := guidanceURL(tc.url); got != tc.want {
			t.Errorf("guidanceURL(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

// The hostile URL is dropped from the explanation and the fix; the sentence
// that needs it falls back to the words without it.
func TestExplanationLeavesOutAForgedURL(t *testing.T) {
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	v := e.Classify(Input{Recipient: "jo@shop.example", Status: "5.7.1", Command: "RCPT",
		Diagnostic: "550 5.7.1 Service unavailable; client [203.0.113.7] blocked using zen.spamhaus.org; see https://evil.example/delist?ip=203.0.113.7"})
	for _, s := range []string{v.Explanation, v.Fix, v.Facts.Get(FactURL)} {
		if strings.Contains(s, "evil.example") {
			t.Errorf("the forged URL reached the words: %q", s)
		}
	}
	if v.Facts.Get(FactList) == "" {
		t.Errorf("the block list was not captured; facts %v", v.Facts)
	}
}

// Telling a URL without a guidance host by its text alone gives what
// parsing it gives, for hosts in any case, percent-encoded, with
// non-ASCII letters, user information, ports and lookalike names.
func TestGuidanceURLWithoutParsingAgreesWithParsing(t *testing.T) {
	var urls []string
	for _, h := range guidanceHosts {
		up := strings.ToUpper(h)
		enc := strings.Replace(h, ".", "%2E", 1)
		urls = append(urls,
			"https://"+h+"/", "http://"+up+":8080/x", "https://www."+h, "www."+h+"/a",
			"https://"+enc+"/", "https://not"+h+"/", "https://"+h+".evil.example/",
			"https://"+h+"@evil.example/", "https://evil.example/"+h, "https://x."+h+"./",
			"ftp://"+h+"/", "https://"+strings.Replace(h, "i", "\u0130", 1)+"/",
			"https://"+strings.Replace(h, "k", "\u212a", 1)+"/", "https://["+h+"]/",
		)
	}
	urls = append(urls, "https://evil.example/delist", "http://[::1]/", "", "www.", "https://", "javascript://google.com/%0aalert(1)")
	for _, v := range urls {
		if got, want := guidanceURL(v), parsedGuidanceURL(v); got != want {
			t.Errorf("guidanceURL(%q) = %v, parsing says %v", v, got, want)
		}
	}
}
