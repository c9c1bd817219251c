package main

// The ledger commands while serve (or filter) runs on the embedded ledger:
// bbolt has one writer, so the running service holds the file, and the
// commands ask the service's HTTP API instead (package httpapi), at the
// address the service left in the address file next to the ledger.

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// ledgerReader is what lookup and stats read: the ledger itself, or the
// running service's API.
type ledgerReader interface {
	ByMessageID(ctx context.Context, id string) (ledger.Record, error)
	ByQueueID(ctx context.Context, id string) (ledger.Record, error)
	Stats(ctx context.Context) (ledger.Stats, error)
	Close() error
}

// boltFile is the bbolt file the resolved ledger is, "" for Redis.
func (r resolved) boltFile() string {
	switch {
	case boltInData(r.spec):
		return filepath.Join(r.dataDir, "ledger.db")
	case strings.HasPrefix(r.spec, "bolt:"):
		return strings.TrimPrefix(r.spec, "bolt:")
	}
	return ""
}

// openOrService opens the ledger; or, when it is a bbolt file locked by
// another process, returns a client of the service that left its address
// next to the file. The error says what to do when neither can be had.
func (r resolved) openOrService() (ledger.Ledger, *httpapi.Client, error) {
	path := r.boltFile()
	if path != "" && boltLocked(path) {
		c, err := serviceClient(path)
		return nil, c, err
	}
	led, err := r.open()
	return led, nil, err
}

// openReader is openOrService for lookup and stats.
func (r resolved) openReader() (ledgerReader, error) {
	led, c, err := r.openOrService()
	switch {
	case err != nil:
		return nil, err
	case c != nil:
		return serviceLedger{c}, nil
	}
	return led, nil
}

// boltLocked reports whether another process holds the bbolt file (bbolt
// takes an exclusive flock(2) on it): asked without waiting, so that the
// commands do not wait for bbolt's own lock timeout.
func boltLocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// serviceClient is the client of the service whose address file is next
// to the locked ledger file path.
func serviceClient(path string) (*httpapi.Client, error) {
	dir := filepath.Dir(path)
	addrFile := filepath.Join(dir, httpapi.AddrFileName)
	a, err := httpapi.ReadAddrFile(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s is locked by another process, and no running ndrmilter left the address of its API in %s: "+
			"if ndrmilter serve (or filter) holds the ledger, turn its HTTP listener on (http_listen in its configuration) and restart it, "+
			"or stop it (systemctl stop ndrmilter) and run this again", path, addrFile)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("%s is locked by the running service, and its API address file %s is readable by the service's user only: "+
			"run this as root or as that user (sudo -u ndrmilter ...)", path, addrFile)
	case err != nil:
		return nil, fmt.Errorf("%s is locked by another process, and %v", path, err)
	case !a.Alive():
		return nil, fmt.Errorf("%s is locked by another process, not by the service that wrote %s (its process %d is gone): "+
			"wait for that process (another ledger import?) to end", path, addrFile, a.PID)
	}
	return httpapi.NewClient(a), nil
}

// serviceLedger is the running service's API as a ledgerReader.
type serviceLedger struct{ c *httpapi.Client }

// ByMessageID and ByQueueID both ask the service's lookup, which tries the
// Message-ID, then the queue id.
func (s serviceLedger) ByMessageID(ctx context.Context, id string) (ledger.Record, error) {
	return s.c.Lookup(ctx, id)
}

func (s serviceLedger) ByQueueID(ctx context.Context, id string) (ledger.Record, error) {
	return s.c.Lookup(ctx, id)
}

func (s serviceLedger) Stats(ctx context.Context) (ledger.Stats, error) { return s.c.Stats(ctx) }

func (s serviceLedger) Close() error { return nil }

// importThroughService sends the logs, oldest first, to the running
// service's import (POST /api/v1/ledger/import), which runs the import a
// local one runs (postfixlog.Importer) on the service's ledger. The files
// go as one log, so that a message whose lines span a rotation is joined:
// each decompressed here (one bad file is reported and skipped, as a local
// import skips it), and the whole compressed again, so that the service's
// limit on the size of an import (http_import_max_bytes) holds several
// times as much log.
func importThroughService(c *httpapi.Client, files, domains []string, asJSON bool) int {
	pr, pw := io.Pipe()
	read := make(chan int, 1) // the exit status of reading the files
	go func() {
		st := exitOK
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		for _, name := range oldestFirst(files) {
			if err := copyLog(zw, name); err != nil {
				if errors.Is(err, io.ErrClosedPipe) {
					break // the service stopped reading
				}
				fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %s: %v\n", name, err)
				st = exitNo
			}
		}
		pw.CloseWithError(zw.Close())
		read <- st
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Hour)
	defer cancel()
	sum, err := c.Import(ctx, pr, domains, false)
	pr.CloseWithError(io.ErrClosedPipe)
	status := <-read
	switch {
	case errors.Is(err, httpapi.ErrImportLimit):
		// What came before the limit is imported: part of the work.
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: through the running service: %v\n", err)
		return exitNo
	case err != nil:
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: through the running service: %v\n", err)
		return exitLedger
	}
	if !asJSON {
		fmt.Printf("the ledger is held by the running service: imported through its API\n")
	}
	printImportSummary(sum, asJSON)
	return importStatus(status, sum, false)
}

// copyLog writes a log file ("-" for standard input), decompressed when it
// is gzip, ending in a newline.
func copyLog(w io.Writer, name string) error {
	f, err := openLog(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	if _, err := io.Copy(w, br); err != nil {
		return err
	}
	_, err = w.Write([]byte("\n"))
	return err
}
