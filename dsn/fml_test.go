package dsn

import "testing"

func TestFMLNoticeNamesTheListAsFailed(t *testing.T) {
	for name, tc := range map[string]struct {
		raw        []byte
		list, diag string
	}{
		"not a member": {
			raw: rawMessage("From: yama-admin@ml.example.jp\nTo: k.ito@example.com\nSubject: You k.ito@example.com are not member (yama ML)\nMessage-ID: <202403011200.FML00417.yama@ml.example.jp>\nX-MLServer: fml [fml 4.0.3 release (20011202/4.0.3)]\n",
				"You are not a member of this mailing list <yama@ml.example.jp>.\n\nIf you know the general guide of this list, send \"guide\" to\n\n\tyama-ctl@ml.example.jp\n"),
			list: "yama@ml.example.jp", diag: "You are not a member of this mailing list <yama@ml.example.jp>.",
		},
		"duplicated message-id": {
			raw: rawMessage("From: kenkyu-admin@lab.example.ac.jp\nTo: kenkyu-admin@lab.example.ac.jp\nSubject: Loop Alert: Duplicated Message-ID (kenkyu ML)\nMessage-Id: <202311070910.FMLAB0012.kenkyu@lab.example.ac.jp>\nX-MLServer: fml [fml 4.0 STABLE (20040215)]\n",
				"Duplicated Message-ID in <kenkyu@lab.example.ac.jp>.\n\nOriginal mail as follows:\n\n   From: s.mori@example.org\n   To: kenkyu@lab.example.ac.jp\n"),
			list: "kenkyu@lab.example.ac.jp", diag: "Duplicated Message-ID in <kenkyu@lab.example.ac.jp>.",
		},
	} {
		r := mustParse(t, tc.raw)
		if r.Kind != KindBounce || r.Format != "fml" || len(r.Recipients) != 1 {
			t.Errorf("%s: kind %q format %q with %d recipients, want one fml bounce", name, r.Kind, r.Format, len(r.Recipients))
			continue
		}
		if rc := r.Recipients[0]; rc.Address != tc.list || rc.Diagnostic != tc.diag || rc.Action != "failed" {
			t.Errorf("%s: %q %q %q, want failed %q with %q", name, rc.Address, rc.Action, rc.Diagnostic, tc.list, tc.diag)
		}
	}
}

func TestAPostPassedOnByFMLIsNoNotice(t *testing.T) {
	// A post the list distributes keeps its author's Message-ID; its
	// subject and text may use the words of fml's notices.
	r := mustParse(t, rawMessage("From: a.sato@example.com\nTo: sec@ml.example.jp\nSubject: [sec:01234] Security alert: patch the web server\nMessage-ID: <f3a1c2d4@example.com>\nX-MLServer: fml [fml 4.0.3 release (20011202/4.0.3)]\n",
		"Security alert: reported to <sec@ml.example.jp> by the vendor today.\n"))
	if r.Kind != KindNone {
		t.Errorf("kind %q with %d recipients, want not-bounce", r.Kind, len(r.Recipients))
	}
}
