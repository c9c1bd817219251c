package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The disk-full test: a child process runs in a mount namespace of its
// own, on a tmpfs of 32 MiB (a real full disk: writes fail with ENOSPC),
// and checks what the README's "Failure modes" says of a full disk. The
// parent reports the child's failures.
const diskFullChildEnv = "NDR_BOLT_DISKFULL_CHILD"

func TestBoltFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process in a mount namespace")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if err := exec.Command("unshare", "-m", "true").Run(); err != nil {
		t.Skipf("no mount namespaces (unshare -m: %v)", err)
	}
	dir := t.TempDir()
	cmd := exec.Command("unshare", "-m", "/bin/sh", "-c", `mount -t tmpfs -o size=32m tmpfs "$NDR_BOLT_DISKFULL_CHILD" && exec "$0" "$@"`,
		os.Args[0], "-test.run=^TestBoltFullDiskChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), diskFullChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBoltFullDiskChild") {
		t.Fatalf("the child on a full disk: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "full disk:") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// On a full disk, Puts go on into the journal (its blocks are written
// already) until it is full; then a Put fails with an error, and lookups
// say "cannot tell" (an error, not ErrNotFound) while bbolt cannot take
// the journal's records. Once there is room again, every record whose Put
// returned is found.
func TestBoltFullDiskChild(t *testing.T) {
	dir := os.Getenv(diskFullChildEnv)
	if dir == "" {
		t.Skip("helper process for TestBoltFullDisk")
	}
	ctx := context.Background()
	path := filepath.Join(dir, "ledger.db")
	l := openTestBolt(t, path, Options{})
	if err := l.Put(ctx, Record{MessageID: "before@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}}); err != nil {
		t.Fatal(err)
	}
	// A read writes the records pending into bbolt (settle): this one is
	// in bbolt before the disk fills, whenever the applier would go.
	if _, err := l.ByMessageID(ctx, "before@example.org"); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v, want ENOSPC", err)
			}
			break
		}
	}
	f.Close()

	var acked []string
	var putErr error
	for i := range 100000 {
		r := benchRecord(int64(i))
		if putErr = l.Put(ctx, r); putErr != nil {
			break
		}
		acked = append(acked, r.MessageID)
	}
	t.Logf("full disk: %d Puts returned, then: %v", len(acked), putErr)
	if putErr == nil {
		t.Fatalf("100000 Puts on a full disk all returned: the journal grew, or bbolt found room")
	}
	if len(acked) < 1000 {
		t.Errorf("%d Puts returned on a full disk, want the journal's worth (thousands)", len(acked))
	}
	if fi, err := os.Stat(path + "-journal"); err != nil || fi.Size() != journalSize {
		t.Errorf("the journal on a full disk: %v, %v; want %d bytes", fi, err, journalSize)
	}
	// A lookup of a record bbolt has answers; one of a record that only
	// the journal has cannot tell, and never says "not found".
	if _, err := l.ByMessageID(ctx, "before@example.org"); err != nil {
		t.Errorf("a lookup of a record in bbolt while bbolt takes nothing: %v, want it found", err)
	}
	if _, err := l.ByMessageID(ctx, acked[len(acked)-1]); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("a lookup of a journalled record while bbolt takes nothing: %v, want an error that is not ErrNotFound", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range append([]string{"before@example.org"}, acked...) {
		for {
			_, err := l.ByMessageID(ctx, id)
			if err == nil {
				break
			}
			if errors.Is(err, ErrNotFound) || time.Now().After(deadline) {
				t.Fatalf("%s, whose Put returned on the full disk, once there is room: %v", id, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := l.Put(ctx, Record{MessageID: "after@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}}); err != nil {
		t.Fatalf("Put once there is room: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("full disk: all", len(acked)+2, "records found once there was room")
}
