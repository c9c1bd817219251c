package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The filter's default ports are the deploy kit's, and neither takes a port
// of 10024-10028, where amavis (10024 in, 10025 back), FILTER_README's
// example, dkimproxy, clamsmtp and spampd listen.
func TestFilterPortsMatchTheKitAndStayClearOfAmavis(t *testing.T) {
	c := defaultFilterConfig()
	kits := []string{"../../deploy/postfix/filter-after-queue.cf", "../../deploy/postfix/filter-before-queue.cf",
		"../../deploy/exim/ndrmilter-filter.conf", "../../deploy/opensmtpd/smtpd.conf", "../../README.md"}
	taken := regexp.MustCompile(`(127\.0\.0\.1[:.]|port\s*=?\s*|\{)1002[4-8]\b`)
	for _, path := range kits {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for i, line := range strings.Split(text, "\n") {
			if taken.MatchString(line) {
				t.Errorf("%s:%d uses a port of amavis' range: %s", path, i+1, line)
			}
		}
		if !strings.Contains(text, c.Listen) || !strings.Contains(text, strings.TrimPrefix(c.Next, "127.0.0.1:")) {
			t.Errorf("%s does not name the filter's default ports %s and %s", path, c.Listen, c.Next)
		}
	}
}
