package ledger

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// After a batch, the pages of the ledger file that its transactions read
// are no longer in the process's resident set: an import's memory does
// not grow with the ledger it writes into.
func TestBoltMergeBatchLeavesTheLedgerFileOutOfTheResidentSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := openBolt(path, Options{}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	base := time.Now().Add(-time.Hour)
	recs := make([]Record, 20000)
	for i := range recs {
		recs[i] = Record{MessageID: fmt.Sprintf("%x.%d@example.org", i*7919, i), QueueID: fmt.Sprintf("4Q%X", i*104729),
			Sender: "alice@example.org", Recipients: []string{fmt.Sprintf("bob%d@remote.test", i)}, Time: base}
	}
	if _, err := MergeBatch(context.Background(), l, recs); err != nil {
		t.Fatal(err)
	}
	rss := mappedRSS(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 4<<20 {
		t.Fatalf("the ledger file has %d bytes: too small to tell", fi.Size())
	}
	if rss > 256<<10 {
		t.Errorf("%d kB of the %d kB ledger file resident after the batch, want at most 256 kB", rss>>10, fi.Size()>>10)
	}
	// A lookup maps again what it reads, and finds the record.
	if r, err := l.ByMessageID(context.Background(), recs[12345].MessageID); err != nil || r.QueueID != recs[12345].QueueID {
		t.Errorf("ByMessageID after the batch: %+v, %v", r, err)
	}
}

// mappedRSS returns the resident bytes of the process's maps of file.
func mappedRSS(t *testing.T, file string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && len(fields) >= 5 {
			in = len(fields) >= 6 && fields[5] == file
			continue
		}
		if in && fields[0] == "Rss:" && len(fields) >= 2 {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}
