package backscatter

import (
	"strings"
	"testing"
)

func TestQueueIDs(t *testing.T) {
	got := queueIDs([]string{
		"from a (a [192.0.2.1]) by mx.example.org (Postfix) with ESMTPSA id 4dLm2x0Q1Rz9\n\tfor <b@c>; Mon, 2 Nov 2026",
		"by mail.example.org (Postfix, from userid 1000) id 3A1B2C3D4E; Mon, 2 Nov 2026",
		"from x by y with SMTP id <abcdef.123@host>;",
		"from mx by google with ESMTPS id d9443c01a7336-2a0e;",
		"no queue id here; identity ideal",
	})
	want := []string{"4dLm2x0Q1Rz9", "3A1B2C3D4E", "abcdef.123", "d9443c01a7336-2a0e"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("queueIDs = %q, want %q", got, want)
	}
}
