package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The write-ahead journal of the bbolt ledger.
//
// A bbolt commit costs two fdatasyncs (its pages, then its meta page) and
// the writes of every page it changed: 1.1-1.2 ms per record on the
// project's disk (ext4), where a 200-byte overwrite of a file whose blocks
// are already written, and one fdatasync, costs about 0.17 ms. A message
// is acknowledged only once its record is durable, so Put makes a record
// durable the cheap way: it appends the record to the journal, a file
// beside the bbolt file, of journalSize bytes written (zeros) once when it
// is created, and syncs it once for every Put that arrived while the
// previous sync ran (group commit): on Linux the write itself, the file
// being opened with O_DSYNC (journalSyncFlag), elsewhere an fdatasync
// after it. The Put that finds no sync running does it, for every Put
// queued (commitNext). The file never grows and its
// blocks are never unwritten (fallocate would leave them so, and the first
// write of each would change the file's metadata, which fdatasync then
// writes too): a sync is its data alone.
//
// An applier goroutine writes the journalled records into bbolt in
// batches, at the first pause in the journal's writes (applyQuiet) once
// the first of them has waited applyAge (at once for a Merge), in one
// ordinary transaction per batch that also records the
// sequence number of the last record it holds (metaJournalApplied). Once
// all written records are in bbolt, the next one goes to the start of the
// journal again (a checkpoint): the journal holds only records bbolt may
// lack, and never more than journalSize bytes of them; when it is full, a
// Put waits for bbolt's commit of the records before it (see
// commitGroup). Every read of the ledger first applies the records whose
// Put returned, so that it sees them (settle).
//
// At open, the records of the journal that bbolt lacks (their sequence
// number is above metaJournalApplied) are applied before the ledger
// serves: a record acknowledged before a crash is in bbolt afterwards. A
// record is applied once: a merge applied twice can move a queue id back
// to an older message (see Ledger), so replay does not count on merges
// being idempotent.
//
// # Frames
//
// Each record is one frame (integers big-endian):
//
//	length  4 bytes: of the payload, 1 to maxFramePayload
//	crc     4 bytes: CRC-32C (Castagnoli) of seq and payload
//	seq     8 bytes: sequence number, 1 more than the frame before it
//	payload length bytes: the Record, normalized, in JSON
//
// Every write of frames ends with a header of zeros (unless it reaches the
// end of the file), which the next write overwrites: a reader stops there.
// A frame that does not check (a write torn by a crash, garbage) ends the
// journal too: the records after it were never acknowledged, since the
// journal is written in order and a Put returns only after the fdatasync
// of its frame and of every frame before it. A frame whose sequence number
// does not follow is one of an earlier pass over the file, before a
// checkpoint.

// journalSize is the size of the journal file: about 15,000 records of a
// few recipients. The applier writes records into bbolt in batches much
// faster than the milter takes messages; a journal full of records means
// bbolt has stopped taking them (a full disk), and a Put then waits for it
// (and fails with it).
const journalSize = 4 << 20

// frameHeader is the size of a frame's header.
const frameHeader = 16

// maxFramePayload bounds a frame's payload: one frame and the zeros after
// it fit in the journal. A larger record (thousands of long recipients)
// goes to bbolt directly, as a Put did before the journal.
const maxFramePayload = journalSize - 2*frameHeader

// metaJournalApplied is the key in bucketMeta of the sequence number of
// the last journalled record written into bbolt (8 bytes).
var metaJournalApplied = []byte("journal-applied")

// castagnoli is the CRC-32C table of the frames, made on first use: making
// it costs 0.3 ms, paid at every start of every command otherwise (issue 14).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// appendFrame appends the frame of payload with sequence number seq to buf.
func appendFrame(buf []byte, seq uint64, payload []byte) []byte {
	var h [frameHeader]byte
	binary.BigEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint64(h[8:16], seq)
	crc := crc32.Update(0, castagnoli(), h[8:16])
	crc = crc32.Update(crc, castagnoli(), payload)
	binary.BigEndian.PutUint32(h[4:8], crc)
	buf = append(buf, h[:]...)
	return append(buf, payload...)
}

// errJournalTail says why the journal ended before its end of file or its
// header of zeros: a torn write or garbage. The records before it are
// kept.
type errJournalTail struct {
	off    int
	reason string
}

func (e errJournalTail) Error() string {
	return fmt.Sprintf("ledger journal: ignored what follows offset %d: %s (a write torn by a crash, never acknowledged, or damage)", e.off, e.reason)
}

// readFrames calls fn with the sequence number and payload of each frame
// of the journal data, in order, and returns the offset after the last
// one. It stops at the end of data, at a header of zeros, or at a frame of
// an earlier pass (its sequence number does not follow), with a nil error;
// at a frame that does not check it stops with an errJournalTail. payload
// is part of data.
func readFrames(data []byte, fn func(seq uint64, payload []byte)) (int, error) {
	off := 0
	var prev uint64
	for off < len(data) {
		rest := data[off:]
		if len(rest) < frameHeader {
			if allZero(rest) {
				return off, nil
			}
			return off, errJournalTail{off, fmt.Sprintf("%d bytes, shorter than a frame header of %d", len(rest), frameHeader)}
		}
		n := binary.BigEndian.Uint32(rest[0:4])
		seq := binary.BigEndian.Uint64(rest[8:16])
		if n == 0 {
			if allZero(rest[:frameHeader]) {
				return off, nil
			}
			return off, errJournalTail{off, "a frame of length 0"}
		}
		if n > maxFramePayload || int64(n) > int64(len(rest)-frameHeader) {
			return off, errJournalTail{off, fmt.Sprintf("a frame of %d bytes, want at most %d", n, min(maxFramePayload, len(rest)-frameHeader))}
		}
		payload := rest[frameHeader : frameHeader+int(n)]
		crc := crc32.Update(0, castagnoli(), rest[8:16])
		crc = crc32.Update(crc, castagnoli(), payload)
		if want := binary.BigEndian.Uint32(rest[4:8]); crc != want {
			return off, errJournalTail{off, fmt.Sprintf("CRC-32C %08x, the frame says %08x", crc, want)}
		}
		if seq == 0 {
			return off, errJournalTail{off, "sequence number 0"}
		}
		if prev != 0 && seq != prev+1 {
			return off, nil // a frame of an earlier pass over the file
		}
		fn(seq, payload)
		prev = seq
		off += frameHeader + int(n)
	}
	return off, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// journalFile is the journal's file: preallocated, written with pwrite at
// the offset its one writer (the ledger's committer) keeps.
type journalFile struct {
	f    *os.File
	path string
	end  int64 // where the next frame goes
	seq  uint64
	buf  []byte // frames of the write being built
}

// openJournalFile opens (creating if needed) the journal at path, returns
// its first journalSize bytes, and makes sure the file holds journalSize
// written bytes, durably.
func openJournalFile(path string) (*journalFile, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|journalSyncFlag, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: opening the journal %s: %w", path, err)
	}
	fail := func(what string, err error) (*journalFile, []byte, error) {
		f.Close()
		return nil, nil, fmt.Errorf("ledger: %s the journal %s: %w", what, path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail("reading", err)
	}
	if !fi.Mode().IsRegular() {
		return fail("opening", fmt.Errorf("a %v, want a regular file", fi.Mode().Type()))
	}
	data := make([]byte, min(fi.Size(), journalSize))
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, int64(len(data))), data); err != nil {
		return fail("reading", err)
	}
	if fi.Size() < journalSize {
		// Written zeros, not fallocate: see the package's journal notes.
		zeros := make([]byte, 256<<10)
		for off := fi.Size(); off < journalSize; off += int64(len(zeros)) {
			if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), journalSize-off)], off); err != nil {
				return fail("preallocating", err)
			}
		}
		if err := f.Sync(); err != nil {
			return fail("preallocating", err)
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
			return fail("creating", err)
		}
	}
	return &journalFile{f: f, path: path}, data, nil
}

// syncDir makes the entries of directory dir durable (a new file's name).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// fits reports whether frames of payloads of n bytes in all, k frames,
// fit after the journal's end.
func (j *journalFile) fits(k, n int) bool {
	return j.end+int64(k*frameHeader+n) <= journalSize
}

// write writes the frames of payloads after the journal's end, numbered
// from the journal's next sequence number, followed by a header of zeros
// when there is room, and makes them durable (the write itself, on a file
// opened with journalSyncFlag; else fdatasync). They must fit. On success the
// end and the sequence number move past them; on an error they stay, and
// the next write goes to the same place with the same numbers.
func (j *journalFile) write(payloads [][]byte) error {
	j.buf = j.buf[:0]
	seq := j.seq
	for _, p := range payloads {
		seq++
		j.buf = appendFrame(j.buf, seq, p)
	}
	n := len(j.buf)
	if j.end+int64(n)+frameHeader <= journalSize {
		j.buf = append(j.buf, make([]byte, frameHeader)...)
	}
	if _, err := j.f.WriteAt(j.buf, j.end); err != nil {
		return fmt.Errorf("ledger: writing %d records to the journal %s: %w", len(payloads), j.path, err)
	}
	if journalSyncFlag == 0 {
		if err := fdatasync(j.f); err != nil {
			return fmt.Errorf("ledger: syncing the journal %s: %w", j.path, err)
		}
	}
	j.end += int64(n)
	j.seq = seq
	if cap(j.buf) > 1<<20 {
		j.buf = nil // a burst's buffer is not kept
	}
	return nil
}
