package main

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/rules"
)

// TestStatusTextOfAnExpirySaysTheServerGaveUp: an expiry keeps the last
// temporary code (4.x.x) but is permanent; the status line must say both,
// not "4.4.7 (permanent)" nor "(temporary)" alone.
func TestStatusTextOfAnExpirySaysTheServerGaveUp(t *testing.T) {
	lw := wordsIn(language.English)
	for _, c := range []struct {
		status    string
		permanent bool
		want      string
	}{
		{"4.4.7", true, "4.4.7 (temporary, but the sending server has given up)"},
		{"4.2.2", false, "4.2.2 (temporary)"},
		{"5.1.1", true, "5.1.1 (permanent)"},
	} {
		rd := rules.Reading{Classification: rules.Classification{Status: c.status, StatusSource: rules.StatusServer, Permanent: c.permanent}}
		if got := statusText(lw, rd); !strings.EqualFold(got, c.want) {
			t.Errorf("statusText(%s, permanent %v) = %q, want %q", c.status, c.permanent, got, c.want)
		}
	}
}
