package milter

import (
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
)

// Past the buffer budget a bounce passes unread: accepted, no explanation,
// its forged X-NDR-* fields still removed, and counted; once the budget is
// free again, the next one is explained.
func TestOverTheBufferBudgetABouncePassesUnread(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	srv, addr := startServer(t, Config{BufferBudget: 256 << 10}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	big := bigReport(600_000)
	forged := append([]byte("X-NDR-Owner: none\r\n"), big...)
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: forged})
	if err != nil || r.act.Code != gomilter.ActContinue {
		t.Fatalf("a bounce over the budget: %+v %v, want it accepted", r, err)
	}
	a := apply(forged, r.mods)
	if len(ndrFields(a)) != 0 {
		t.Fatalf("a bounce over the budget: X-NDR fields %q, want none (unread, the forged one removed)", ndrFields(a))
	}
	if got := counterValue(t, srv.Metrics().BudgetExceeded.WithLabelValues("buffer")); got != 1 {
		t.Fatalf(`ndrmilter_budget_exceeded_total{limit="buffer"} = %v, want 1`, got)
	}
	small := report("small.1@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 unknown")
	r, err = mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: small})
	if err != nil || len(apply(small, r.mods).get("X-NDR-Explanation")) == 0 {
		t.Fatalf("a small bounce after: %+v %v, want it explained (the budget given back)", r, err)
	}
	if used := srv.budget.Used(); used != 0 {
		t.Fatalf("%d bytes of the budget still held after the messages ended", used)
	}
}

// A connection lost in the middle of a message gives back what the
// message held of the budget (go-milter tells the session nothing).
func TestLostConnectionGivesBackItsBudget(t *testing.T) {
	srv, addr := startServer(t, Config{}, nil)
	mx := dial(t, newClient(addr), "203.0.113.25")
	s := mx.s
	must(t, s.Macros(gomilter.CodeMail, "{client_addr}", "203.0.113.25"))
	if _, err := s.Mail("", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rcpt("alice@example.org", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeaderField("Subject", "Undelivered Mail Returned to Sender"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeaderEnd(); err != nil {
		t.Fatal(err)
	}
	if used := srv.budget.Used(); used == 0 {
		t.Fatal("a bounce in progress holds nothing of the budget")
	}
	mx.close()
	waitUntil(t, func() bool { return srv.budget.Used() == 0 && srv.Sessions() == 0 },
		"the budget given back after the connection was lost")
}

// waitUntil polls cond for at most 5 s, and fails the test with what when
// it never holds.
func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
