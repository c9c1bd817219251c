package frontend

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// DefaultSpoolMax bounds the spool files of outbound records, together.
const DefaultSpoolMax = 64 << 20

// Results of the record spool, as the label of ndrmilter_record_spool_total.
const (
	spoolSpooled  = "spooled"  // written to the spool
	spoolReplayed = "replayed" // written from the spool to the ledger
	spoolFailed   = "failed"   // the spool was full or could not be written: kept in memory
)

// Names of the spool files in the spool directory: records are appended to
// the active file; a replay seals it (renames it with the time) and replays
// the sealed files, oldest first, deleting each once the ledger took all of
// its records.
const (
	spoolActive = "records.spool"
	spoolSealed = "records-*.spool"
)

// maxSpoolLine bounds one line of a spool file: a record of 1000
// recipients of 320 octets, and room.
const maxSpoolLine = 1 << 20

var errSpoolFull = errors.New("the record spool is full")

// spool is a local file of the outbound records the ledger has not taken
// (it was down, slow, or too many writes were pending), so that they
// survive a restart or a kill and are written once the ledger answers
// again. Each record is a line, "CRC32 JSON", appended and fsynced before
// the message it records is acknowledged; concurrent appends share one
// fsync. A line cut by a crash, or damaged, fails its checksum and is
// skipped. The files together are bounded; past the bound a record is kept
// in memory only, as without a spool (counted and logged).
type spool struct {
	dir string
	max int64

	mu      sync.Mutex // the active file, sizes, written
	f       *os.File
	active  int64 // size of the active file
	sealed  int64 // size of the sealed files
	written uint64
	lastErr error // of the last append, nil once one succeeds

	syncMu sync.Mutex // one fsync at a time, covering every append before it
	synced uint64
}

// openSpool opens (creating it) the spool directory dir, whose files may
// hold max bytes together (0: DefaultSpoolMax).
func openSpool(dir string, max int64) (*spool, error) {
	if max <= 0 {
		max = DefaultSpoolMax
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("record spool: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, spoolActive), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, fmt.Errorf("record spool: %w", err)
	}
	s := &spool{dir: dir, max: max, f: f}
	if fi, err := f.Stat(); err == nil {
		s.active = fi.Size()
	}
	for _, name := range s.sealedFiles() {
		if fi, err := os.Stat(name); err == nil {
			s.sealed += fi.Size()
		}
	}
	return s, nil
}

// size returns the bytes the spool files hold.
func (s *spool) size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active + s.sealed
}

// health is the error of the last append, nil once one succeeded.
func (s *spool) health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

// spoolLine is a record as a spool line: its CRC-32 (IEEE) in hex, a space,
// its JSON, a newline.
func spoolLine(r ledger.Record) ([]byte, error) {
	j, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(j)+10)
	line = strconv.AppendUint(line, uint64(crc32.ChecksumIEEE(j)), 16)
	line = append(line, ' ')
	line = append(line, j...)
	return append(line, '\n'), nil
}

// add appends r and returns once it is on disk (fsynced).
func (s *spool) add(r ledger.Record) error {
	line, err := spoolLine(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.active+s.sealed+int64(len(line)) > s.max {
		s.lastErr = errSpoolFull
		s.mu.Unlock()
		return errSpoolFull
	}
	if _, err := s.f.Write(line); err != nil {
		s.lastErr = fmt.Errorf("record spool: %w", err)
		s.mu.Unlock()
		return s.lastErr
	}
	s.active += int64(len(line))
	s.written++
	mine := s.written
	s.mu.Unlock()
	if err := s.sync(mine); err != nil {
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		return err
	}
	s.mu.Lock()
	s.lastErr = nil
	s.mu.Unlock()
	return nil
}

// sync makes the appends up to the n-th durable: one fsync covers every
// append made before it started, so appends waiting here share one.
func (s *spool) sync(n uint64) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if s.synced >= n {
		return nil
	}
	s.mu.Lock()
	f, upTo := s.f, s.written
	s.mu.Unlock()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("record spool: %w", err)
	}
	s.synced = upTo
	return nil
}

// pending reports whether the spool holds records.
func (s *spool) pending() bool { return s.size() > 0 }

// seal closes the active file under a sealed name and opens a new active
// one, so that a replay reads files no append changes.
func (s *spool) seal() error {
	s.syncMu.Lock() // no fsync of the file being renamed
	defer s.syncMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == 0 {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.synced = s.written
	name := filepath.Join(s.dir, fmt.Sprintf("records-%020d.spool", time.Now().UnixNano()))
	if err := os.Rename(filepath.Join(s.dir, spoolActive), name); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, spoolActive), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return err
	}
	s.f.Close()
	s.f = f
	s.sealed += s.active
	s.active = 0
	syncDir(s.dir)
	return nil
}

// sealedFiles returns the sealed files, oldest first.
func (s *spool) sealedFiles() []string {
	names, _ := filepath.Glob(filepath.Join(s.dir, spoolSealed))
	sort.Strings(names)
	return names
}

// replay writes the records of the sealed files with put, oldest first,
// deleting each file once put took all its records; when there is no sealed
// file left, it seals the active one and goes on, until the spool is empty.
// It stops at the first error of put, which it returns; the file it was
// reading stays, and is read again from its start next time (a record put
// twice is merged, not doubled). So while the ledger stays down, the active
// file is sealed once, not at every attempt. It returns the number of
// records put and of lines skipped (damaged).
func (s *spool) replay(put func(ledger.Record) error) (replayed, skipped int, err error) {
	for {
		files := s.sealedFiles()
		if len(files) == 0 {
			if !s.pending() {
				return replayed, skipped, nil
			}
			if err := s.seal(); err != nil {
				return replayed, skipped, fmt.Errorf("record spool: sealing: %w", err)
			}
			if files = s.sealedFiles(); len(files) == 0 {
				return replayed, skipped, nil
			}
		}
		for _, name := range files {
			n, bad, size, err := replayFile(name, put)
			replayed += n
			skipped += bad
			if err != nil {
				return replayed, skipped, err
			}
			if err := os.Remove(name); err != nil {
				return replayed, skipped, fmt.Errorf("record spool: %w", err)
			}
			s.mu.Lock()
			s.sealed = max(0, s.sealed-size)
			s.mu.Unlock()
		}
		syncDir(s.dir)
	}
}

// replayFile puts every good record of one spool file.
func replayFile(name string, put func(ledger.Record) error) (replayed, skipped int, size int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("record spool: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, rerr := readSpoolLine(r)
		if len(line) > 0 {
			rec, ok := parseSpoolLine(line)
			if !ok {
				skipped++
			} else if err := put(rec); err != nil {
				return replayed, skipped, size, err
			} else {
				replayed++
			}
		}
		if rerr == io.EOF {
			return replayed, skipped, size, nil
		}
		if rerr != nil {
			return replayed, skipped, size, fmt.Errorf("record spool: %w", rerr)
		}
	}
}

// readSpoolLine reads a line without its newline; a line longer than
// maxSpoolLine is read to its end and returned cut (its checksum fails).
func readSpoolLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxSpoolLine {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return []byte(strings.TrimSuffix(string(line), "\n")), err
	}
}

// parseSpoolLine reads "CRC32 JSON"; ok is false for a line cut or damaged.
func parseSpoolLine(line []byte) (ledger.Record, bool) {
	sum, j, found := strings.Cut(string(line), " ")
	if !found {
		return ledger.Record{}, false
	}
	want, err := strconv.ParseUint(sum, 16, 32)
	if err != nil || uint32(want) != crc32.ChecksumIEEE([]byte(j)) {
		return ledger.Record{}, false
	}
	var r ledger.Record
	if err := json.Unmarshal([]byte(j), &r); err != nil {
		return ledger.Record{}, false
	}
	return r, true
}

// close closes the active file.
func (s *spool) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Close()
}

// syncDir fsyncs a directory, so that a file created, renamed or removed
// in it stays so after a crash.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
