package milter

import (
	"fmt"
	"strings"
	"testing"

	gomilter "github.com/emersion/go-milter"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// counterValue reads a counter.
func counterValue(t testing.TB, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// forgedOwners returns n header lines "X-NDR-Owner: sender", in mixed case.
func forgedOwners(n int) []string {
	out := make([]string, n)
	for i := range out {
		name := "X-NDR-Owner"
		if i%3 == 1 {
			name = "x-ndr-owner"
		}
		out[i] = name + ": sender"
	}
	return out
}

// ndrFields returns the X-NDR-* fields of an applied header, in order.
func ndrFields(a applied) [][2]string {
	var out [][2]string
	for _, f := range a.fields {
		if strings.HasPrefix(strings.ToLower(f[0]), "x-ndr-") {
			out = append(out, f)
		}
	}
	return out
}

// However many X-NDR-* fields a bounce brings (the forged one first), none
// is delivered: only ndrmilter's own are left, after everything else.
func TestEveryForgedNDRFieldIsRemoved(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	for _, n := range []int{1, 101, 999} {
		raw := report("never.101@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 user unknown",
			forgedOwners(n)...)
		r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
		if err != nil {
			t.Fatalf("%d forged fields: %v", n, err)
		}
		if r.act.Code != gomilter.ActContinue {
			t.Fatalf("%d forged fields: action %+v, want the bounce delivered", n, r.act)
		}
		a := checkNDRHeaders(t, raw, r)
		if got := a.get("X-NDR-Owner"); len(got) != 1 {
			t.Fatalf("%d forged fields: %d X-NDR-Owner fields after the milter, want ndrmilter's one", n, len(got))
		}
		// ndrmilter's fields come last, and they are the only ones.
		fields := ndrFields(a)
		if len(fields) != 4 || fields[0][0] != "X-NDR-Backscatter" || fields[0][1] != "yes; evidence=message-id" {
			t.Fatalf("%d forged fields: X-NDR fields after the milter %q, want ndrmilter's four", n, fields)
		}
	}
}

// A message with more X-NDR-* fields than the milter deletes is refused
// for now (451), never delivered with one of them left.
func TestTooManyNDRFieldsAreATemporaryFailure(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	srv, addr := startServer(t, Config{}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := report("never.many@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 user unknown",
		forgedOwners(maxNDRFields+1)...)
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if r.act == nil || r.act.Code != gomilter.ActReplyCode || r.act.SMTPCode != 451 {
		t.Fatalf("%d forged fields: action %+v, want a 451", maxNDRFields+1, r.act)
	}
	if got := counterValue(t, srv.Metrics().Tempfails.WithLabelValues("ndr_fields")); got != 1 {
		t.Fatalf("ndrmilter_tempfail_total{reason=ndr_fields} = %v, want 1", got)
	}
	// The connection goes on with the next message.
	next := report("never.next@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 user unknown", "X-NDR-Owner: none")
	r, err = mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: next})
	if err != nil || r.act.Code != gomilter.ActContinue || len(checkNDRHeaders(t, next, r).get("X-NDR-Owner")) != 1 {
		t.Fatalf("the message after: %+v %v", r, err)
	}
}

// Mail from our own users (authenticated, or from a trusted network) to our
// own users loses the X-NDR-* fields it brings: only ndrmilter writes them.
// Mail to other domains only keeps them.
func TestNDRFieldsRemovedFromOutboundMailToOurUsers(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	for _, tc := range []struct {
		name     string
		clientIP string
		auth     string
		rcpts    []string
		stripped bool
	}{
		{"authenticated, to our user", "203.0.113.40", "alice", []string{"bob@example.org"}, true},
		{"trusted network, to our user", "127.0.0.1", "", []string{"bob@example.org"}, true},
		{"authenticated, to ours and outside", "203.0.113.40", "alice", []string{"x@remote.example", "bob@example.org"}, true},
		{"authenticated, outside only", "203.0.113.40", "alice", []string{"x@remote.example"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mx := dial(t, newClient(addr), tc.clientIP)
			defer mx.close()
			id := fmt.Sprintf("out.%d@example.org", len(tc.name))
			raw := plain("alice@example.org", tc.rcpts[0], id, "X-NDR-Backscatter: no; evidence=message-id", "X-NDR-Owner: none")
			r, err := mx.send(envelope{from: "alice@example.org", rcpts: tc.rcpts, auth: tc.auth, raw: raw})
			if err != nil || r.act.Code != gomilter.ActContinue {
				t.Fatalf("%+v %v", r, err)
			}
			waitRecorded(t, l, id)
			left := ndrFields(apply(raw, r.mods))
			if tc.stripped && len(left) != 0 {
				t.Fatalf("X-NDR fields left on mail to our users: %q", left)
			}
			if !tc.stripped && (len(left) != 2 || len(r.mods) != 0) {
				t.Fatalf("mail to other domains only changed: %+v", r.mods)
			}
		})
	}
}
