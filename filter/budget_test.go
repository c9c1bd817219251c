package filter

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// Past the buffer budget a bounce passes through the filter unread:
// delivered whole, its forged X-NDR-* fields removed, no explanation, and
// counted; the budget is given back after it.
func TestOverTheBufferBudgetABouncePassesUnread(t *testing.T) {
	k := startSink(t, nil)
	srv, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound, BufferBudget: 128 << 10}, openLedger(t))
	c := client(t, addr)
	var pad strings.Builder
	for i := 0; pad.Len() < 400_000; i++ {
		fmt.Fprintf(&pad, "%08d transcript line of the remote session, kept for the admins\r\n", i)
	}
	raw := report("never.1@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 unknown")
	big := bytes.Replace(raw, []byte("--BOUNDARY.1--"), []byte("--BOUNDARY.1\r\nContent-Type: text/plain\r\n\r\n"+pad.String()+"--BOUNDARY.1--"), 1)
	must(t, sendMail(c, "", []string{"alice@example.org"}, bytes.NewReader(append([]byte("X-NDR-Owner: none\r\n"), big...))))
	got := k.messages()[0].data
	if !bytes.Equal(got, big) {
		t.Fatalf("a bounce over the budget: %d bytes delivered, want the %d of the bounce without its forged field; X-NDR fields: %q",
			len(got), len(big), headerLines(got, "X-NDR-Owner"))
	}
	var m dto.Metric
	srv.Metrics().BudgetExceeded.WithLabelValues("buffer").Write(&m)
	if m.GetCounter().GetValue() != 1 {
		t.Fatalf(`ndrmilter_budget_exceeded_total{limit="buffer"} = %v, want 1`, m.GetCounter().GetValue())
	}
	must(t, sendMail(c, "", []string{"alice@example.org"}, bytes.NewReader(raw)))
	if len(headerLines(k.messages()[1].data, "X-NDR-Explanation")) == 0 {
		t.Fatal("a small bounce after it was not explained")
	}
	if used := srv.budget.Used(); used != 0 {
		t.Fatalf("%d bytes of the budget still held", used)
	}
}
