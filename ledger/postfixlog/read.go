package postfixlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// LogStats counts the lines an import read.
type LogStats struct {
	Lines     int // all lines read
	Used      int // Postfix lines that fed the join
	Ignored   int // well-formed lines of no interest
	Malformed int // not a log line, or a Postfix line with broken fields; skipped
}

func (s *LogStats) add(o LogStats) {
	s.Lines += o.Lines
	s.Used += o.Used
	s.Ignored += o.Ignored
	s.Malformed += o.Malformed
}

// blockSize is the size of the blocks of whole lines that ReadLog parses in
// parallel; it is larger than maxLogLine, so that a block holds at least
// one line that is not too long.
const blockSize = 256 << 10

// maxParsers bounds the goroutines that parse blocks.
const maxParsers = 8

// block is a run of whole lines read from the log, and what parsing them
// gave.
type block struct {
	buf    []byte // blockSize bytes, reused
	data   []byte // whole lines, in buf
	long   int    // lines too long, skipped before data
	err    error  // the read error that ends the log after data
	events []LogEvent
	st     LogStats
	ready  chan struct{} // a parser is done with it
}

// ReadLog reads a Postfix log, plain or gzip-compressed (detected by its
// magic bytes), feeds its lines to j and calls emit for each completed
// ledger.Record, in the order of the log. A malformed line is counted and
// skipped; a line longer than 64 KiB is malformed. ReadLog stops only on a
// read error or when emit returns an error. It does not Flush j, so that
// rotated files can be read in order into one join.
//
// ReadLog reads blocks of lines ahead and parses them on as many
// goroutines as there are CPUs (up to 8), while the join and emit run on
// the caller's, in the log's order. Its memory is bounded: a few blocks of
// 256 KiB, and what j holds.
func ReadLog(r io.Reader, j *LogJoiner, now time.Time, loc *time.Location, emit func(ledger.Record) error) (LogStats, error) {
	var st LogStats
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return st, fmt.Errorf("ledger: gzip log: %w", err)
		}
		defer zr.Close()
		src = zr
	}

	parsers := min(max(runtime.GOMAXPROCS(0), 1), maxParsers)
	nblocks := 2*parsers + 2
	free := make(chan *block, nblocks)
	for range nblocks {
		free <- &block{buf: make([]byte, blockSize), ready: make(chan struct{}, 1)}
	}
	jobs := make(chan *block, nblocks)
	order := make(chan *block, nblocks)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// On an early return, the reader stops at its next block and the
	// parsers with it; none outlives ReadLog (the reader reads src, which
	// the caller closes).
	defer wg.Wait()
	defer close(stop)
	wg.Go(func() { readBlocks(src, free, jobs, order, stop) })
	for range parsers {
		wg.Go(func() {
			p := lineParser{now: now, loc: loc}
			for b := range jobs {
				p.parseBlock(b)
				b.ready <- struct{}{}
			}
		})
	}

	var out []ledger.Record
	for b := range order {
		<-b.ready
		st.add(b.st)
		for i := range b.events {
			out = j.add(&b.events[i], out[:0])
			for _, rec := range out {
				if err := emit(rec); err != nil {
					return st, err
				}
			}
		}
		if b.err != nil {
			return st, fmt.Errorf("ledger: reading log: %w", b.err)
		}
		free <- b
	}
	return st, nil
}

// readBlocks cuts src into blocks of whole lines and hands each to a parser
// (jobs) and, in the same order, to the join (order). It stops at the end
// of src, at a read error, or when stop closes.
func readBlocks(src io.Reader, free chan *block, jobs, order chan<- *block, stop <-chan struct{}) {
	defer close(order)
	defer close(jobs)
	carry := make([]byte, 0, blockSize) // the start of a line that goes on in the next block
	skipping := false                   // inside a line too long, up to its end
	for {
		var b *block
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.data, b.long, b.err, b.events, b.st = nil, 0, nil, b.events[:0], LogStats{}
		n := copy(b.buf, carry)
		carry = carry[:0]
		m, err := io.ReadFull(src, b.buf[n:])
		data := b.buf[:n+m]
		end := err != nil
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = nil
		}
		b.err = err
		if skipping {
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				data, skipping = data[i+1:], false
				b.long++
			} else {
				data = nil
				if end {
					skipping = false
					b.long++
				}
			}
		}
		if !end && !skipping {
			// The last line goes on in the next block.
			i := bytes.LastIndexByte(data, '\n')
			rest := data[i+1:]
			data = data[:i+1]
			if len(rest) > maxLogLine {
				skipping = true
			} else {
				carry = append(carry, rest...)
			}
		}
		b.data = data
		jobs <- b
		order <- b
		if end {
			return
		}
	}
}

// parseBlock parses the lines of b into its events and stats.
func (p *lineParser) parseBlock(b *block) {
	b.st.Lines += b.long
	b.st.Malformed += b.long
	data := b.data
	var ev LogEvent
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		b.st.Lines++
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) > maxLogLine:
			b.st.Malformed++
			continue
		case blank(line):
			b.st.Ignored++
			continue
		}
		switch err := p.parse(line, &ev); {
		case err == nil:
			b.st.Used++
			b.events = append(b.events, ev)
		case err == ErrNotPostfix:
			b.st.Ignored++
		default:
			b.st.Malformed++
		}
	}
}
