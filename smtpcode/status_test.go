package smtpcode

import "testing"

func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Status
		ok   bool
	}{
		{"5.1.1", Status{ClassPermanent, 1, 1}, true},
		{"4.7.650", Status{ClassTransient, 7, 650}, true},
		{"2.0.0", Status{ClassSuccess, 0, 0}, true},
		{"5.7.509", Status{ClassPermanent, 7, 509}, true},
		{"5.13.68", Status{ClassPermanent, 13, 68}, true}, // the grammar allows three-digit subjects
		{"5.01.001", Status{ClassPermanent, 1, 1}, true},
		{"5.999.999", Status{ClassPermanent, 999, 999}, true},
		{"3.1.1", Status{}, false},
		{"6.1.1", Status{}, false},
		{"5.1", Status{}, false},
		{"5.1.1.1", Status{}, false},
		{"5.1.1000", Status{}, false},
		{"5.1000.1", Status{}, false},
		{"5..1", Status{}, false},
		{"5.1.", Status{}, false},
		{" 5.1.1", Status{}, false},
		{"5.1.1 ", Status{}, false},
		{"5.-1.1", Status{}, false},
		{"", Status{}, false},
	} {
		got, err := ParseStatus(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseStatus(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if IsStatus(c.in) != c.ok {
			t.Errorf("IsStatus(%q) = %v, want %v", c.in, !c.ok, c.ok)
		}
	}
}

func TestParseStatusErrorSaysWhatCameAndWhatWasExpected(t *testing.T) {
	_, err := ParseStatus("5.1")
	if err == nil || !contains(err.Error(), `"5.1"`) || !contains(err.Error(), "class.subject.detail") {
		t.Errorf("error %v: want it to quote the input and say the expected form", err)
	}
}

func TestStatusStringIsCanonical(t *testing.T) {
	for in, want := range map[string]string{"5.1.1": "5.1.1", "5.01.001": "5.1.1", "4.7.650": "4.7.650", "2.0.0": "2.0.0"} {
		st, err := ParseStatus(in)
		if err != nil {
			t.Fatal(err)
		}
		if st.String() != want {
			t.Errorf("%q: String() = %q, want %q", in, st.String(), want)
		}
	}
	if s := (Status{}).String(); s != "" {
		t.Errorf("zero Status: String() = %q, want \"\"", s)
	}
}

func TestStatusClassification(t *testing.T) {
	for _, c := range []struct {
		st                  Status
		generic, registered bool
		zero                bool
	}{
		{Status{ClassPermanent, 0, 0}, true, true, false},
		{Status{ClassTransient, 0, 0}, true, true, false},
		{Status{ClassPermanent, 1, 1}, false, true, false},
		{Status{ClassPermanent, 7, 509}, false, true, false},
		{Status{ClassPermanent, 8, 1}, false, false, false},
		{Status{ClassPermanent, 13, 68}, false, false, false},
		{Status{}, false, false, true},
	} {
		if c.st.Generic() != c.generic || c.st.Registered() != c.registered || c.st.IsZero() != c.zero {
			t.Errorf("%v: generic %v registered %v zero %v, want %v %v %v", c.st,
				c.st.Generic(), c.st.Registered(), c.st.IsZero(), c.generic, c.registered, c.zero)
		}
	}
}

func TestParseReply(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  Reply
		class Class
	}{
		{"550", 550, ClassPermanent},
		{"421", 421, ClassTransient},
		{"250", 250, ClassSuccess},
		{"554", 554, ClassPermanent},
		{"354", 0, 0}, // intermediate, not an outcome
		{"560", 0, 0}, // second digit above 5 (RFC 5321 section 4.2.1)
		{"599", 0, 0},
		{"650", 0, 0},
		{"55", 0, 0},
		{"5500", 0, 0},
		{"5x0", 0, 0},
		{"", 0, 0},
	} {
		got, err := ParseReply(c.in)
		if got != c.want || (err == nil) != (c.want != 0) {
			t.Errorf("ParseReply(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if got.Class() != c.class {
			t.Errorf("ParseReply(%q).Class() = %v, want %v", c.in, got.Class(), c.class)
		}
		if IsReply(c.in) != (c.want != 0) {
			t.Errorf("IsReply(%q) = %v", c.in, IsReply(c.in))
		}
		if c.want != 0 && got.String() != c.in {
			t.Errorf("ParseReply(%q).String() = %q", c.in, got.String())
		}
	}
	if s := Reply(0).String(); s != "" {
		t.Errorf("zero Reply: String() = %q, want \"\"", s)
	}
}

func TestParseAction(t *testing.T) {
	for in, want := range map[string]Action{
		"failed": ActionFailed, "Failed": ActionFailed, "DELAYED": ActionDelayed, "delivered": ActionDelivered,
		"relayed": ActionRelayed, "expanded": ActionExpanded, "failure": "", "": "", "failed ": "",
	} {
		if got := ParseAction(in); got != want {
			t.Errorf("ParseAction(%q) = %q, want %q", in, got, want)
		}
	}
	for _, a := range []Action{ActionFailed, ActionDelayed, ActionDelivered, ActionRelayed, ActionExpanded} {
		if !a.Valid() {
			t.Errorf("%q is not Valid", a)
		}
	}
	if Action("Failed").Valid() || Action("").Valid() {
		t.Error("Valid accepts an action not in lower case, or the empty one")
	}
	for a, want := range map[Action]bool{ActionFailed: false, ActionDelayed: false, ActionDelivered: true, ActionRelayed: true, ActionExpanded: true, "": false} {
		if a.Success() != want {
			t.Errorf("%q.Success() = %v, want %v", a, a.Success(), want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
