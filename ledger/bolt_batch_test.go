package ledger

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A batch with a message to 150,000 recipients and 20,000 ordinary ones is
// written in bounded transactions: none holds more than maxTxRecords
// records, maxTxPairs pairs of records, or maxTxSorted sorted pairs; each
// pair is written once; the message's record keeps its first MaxRecipients
// recipients and every recipient is paired with its sender.
func TestBoltMergeBatchBoundsTransactions(t *testing.T) {
	l, err := openBolt(filepath.Join(t.TempDir(), "ledger.db"), Options{}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var txs, records, pairs, biggest int
	l.observeTx = func(r, p int) {
		txs++
		records += r
		pairs += p
		if r > maxTxRecords || r > 0 && p > maxTxPairs || p > maxTxSorted {
			t.Errorf("a transaction of %d records and %d pairs", r, p)
		}
		biggest = max(biggest, r+p)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	list := Record{MessageID: "list@example.org", QueueID: "4LIST", Sender: "list@example.org", Time: base}
	for i := range 150000 {
		list.Recipients = append(list.Recipients, fmt.Sprintf("member%d@remote.test", i))
	}
	recs := []Record{list}
	for i := range 20000 {
		recs = append(recs, Record{MessageID: fmt.Sprintf("m%d@example.org", i), QueueID: fmt.Sprintf("4Q%d", i),
			Sender: "alice@example.org", Recipients: []string{fmt.Sprintf("bob%d@remote.test", i)}, Time: base})
	}
	changes, err := MergeBatch(context.Background(), l, recs)
	if err != nil || len(changes) != len(recs) {
		t.Fatalf("MergeBatch: %d changes, %v", len(changes), err)
	}
	for i, c := range changes {
		if c != ChangeAdded {
			t.Fatalf("record %d: %v, want added", i, c)
		}
	}
	if records != len(recs) || pairs != 150000+20000 {
		t.Errorf("transactions wrote %d records and %d pairs, want %d and %d", records, pairs, len(recs), 150000+20000)
	}
	if wantMax := (len(recs)+maxTxRecords-1)/maxTxRecords + (150000-MaxRecipients+maxTxSorted-1)/maxTxSorted + 1; txs > wantMax {
		t.Errorf("%d transactions, want at most %d", txs, wantMax)
	}
	ctx := context.Background()
	r, err := l.ByQueueID(ctx, "4LIST")
	if err != nil || len(r.Recipients) != MaxRecipients || r.Recipients[MaxRecipients-1] != fmt.Sprintf("member%d@remote.test", MaxRecipients-1) {
		t.Fatalf("the list's record: %d recipients, %v; want its first %d", len(r.Recipients), err, MaxRecipients)
	}
	for _, i := range []int{0, MaxRecipients, 149999} {
		if ok, err := l.SentTo(ctx, "list@example.org", fmt.Sprintf("member%d@remote.test", i)); !ok || err != nil {
			t.Errorf("SentTo(list, member%d) = %v, %v; want true", i, ok, err)
		}
	}
	t.Logf("%d transactions, the biggest of %d writes", txs, biggest)
}

// In a large ledger each record's index keys land on pages of their own: a
// transaction ends once it has read maxTxNodes pages to change them, and
// the rest of the batch goes on in the next, each record and each pair
// written once.
func TestBoltMergeBatchBoundsPagesPerTransaction(t *testing.T) {
	l, err := openBolt(filepath.Join(t.TempDir(), "ledger.db"), Options{}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	record := func(i, rcpts int) Record {
		r := Record{MessageID: fmt.Sprintf("%x.%d@example.org", uint32(i)*2654435761, i), QueueID: fmt.Sprintf("%011X", uint64(i)*0x9E3779B97F4A7C15>>20),
			Sender: "alice@example.org", Time: base}
		for k := range rcpts {
			r.Recipients = append(r.Recipients, fmt.Sprintf("%x.%d.%d@remote.test", uint32(i)*2246822519, i, k))
		}
		return r
	}
	var recs []Record
	for i := range 40000 {
		recs = append(recs, record(i, 1))
	}
	if _, err := MergeBatch(ctx, l, recs); err != nil {
		t.Fatal(err)
	}
	var txs []int
	pairs := 0
	l.observeTx = func(r, p int) {
		if r > 0 {
			txs = append(txs, r)
		}
		pairs += p
	}
	recs = []Record{record(40000, MaxRecipients+500)}
	for i := 40001; i < 40000+maxTxRecords; i++ {
		recs = append(recs, record(i, 1))
	}
	changes, err := MergeBatch(ctx, l, recs)
	if err != nil || len(changes) != len(recs) {
		t.Fatalf("MergeBatch: %d changes, %v", len(changes), err)
	}
	if len(txs) < 2 {
		t.Errorf("%d records in transactions of %v: want more than one in a ledger of 40,000 records", len(recs), txs)
	}
	if want := MaxRecipients + 500 + len(recs) - 1; pairs != want {
		t.Errorf("%d pairs written, want %d (each once)", pairs, want)
	}
	if ok, err := l.SentTo(ctx, "alice@example.org", recs[0].Recipients[MaxRecipients+499]); !ok || err != nil {
		t.Errorf("SentTo for the last recipient past the cap = %v, %v", ok, err)
	}
}
