package helpdesk

import (
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
)

// TestStatusTextSaysWhatTheServerDid: the page words every class of a
// status in the catalog's text (an expiry's 4.x.x: given up, not
// "permanent"; a 2.x.x: success).
func TestStatusTextSaysWhatTheServerDid(t *testing.T) {
	c := catalog.Default()
	text := func(id string, args ...any) string {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = toString(a)
		}
		return c.Text(language.English, id, s...)
	}
	for _, tc := range []struct {
		status    string
		permanent bool
		want      string
	}{
		{"4.4.7", true, "4.4.7 (temporary, but the sending server has given up)"},
		{"4.2.2", false, "4.2.2 (temporary)"},
		{"5.1.1", true, "5.1.1 (permanent)"},
		{"2.0.0", false, "2.0.0 (success)"},
		{"", true, ""},
	} {
		if got := statusText(tc.status, tc.permanent, text); got != tc.want {
			t.Errorf("statusText(%q, %v) = %q, want %q", tc.status, tc.permanent, got, tc.want)
		}
	}
}
