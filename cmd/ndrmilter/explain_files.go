package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/ndrmilter/ndrmilter/rules"
)

// explainFilesInFlight is how many batches of files per worker may be
// read, explained or waiting for their turn to be written at a time: it
// bounds explain's memory (each worker holds at most one message of
// maxExplainInput bytes while it is explained, and a batch holds its output
// after) and keeps the workers busy while the output of an earlier, slower
// batch is awaited.
const explainFilesInFlight = 2

// explainBatchFiles is how many files of a directory (or of the arguments)
// go to a worker at a time: handed over one by one, each small file cost
// goroutine wake-ups (of the lister, a worker and the writer) for a few
// tens of microseconds of work.
const explainBatchFiles = 8

// maxPooledOutput is the largest output buffer kept for the next batch,
// and maxPooledInput the largest message buffer a worker keeps.
const (
	maxPooledOutput = 1 << 20
	maxPooledInput  = 1 << 20
)

// explainItemKind says what an explainItem stands for.
type explainItemKind uint8

const (
	itemFiles    explainItemKind = iota // files, read and explained by a worker
	itemStdin                           // standard input, read in turn by the writer
	itemFailure                         // an error to report in turn
	itemDirBegin                        // the files of a directory follow
	itemDirEnd                          // the files of the directory named are done
)

// explainItem is one input of explain, or a batch of files, on its way from
// the arguments to the output, in the order of the arguments.
type explainItem struct {
	kind explainItemKind
	name string // the directory of itemDirEnd
	err  error  // itemFailure's error
	// listed is set on itemDirEnd when the directory could be listed.
	listed bool

	files  []explainedFile // itemFiles' files, in order
	done   chan struct{}   // closed when a worker is done with itemFiles
	out    bytes.Buffer    // the output of the files, one after the other
	errOut bytes.Buffer    // their diagnostics
}

// explainedFile is one file of a batch, once explained.
type explainedFile struct {
	name   string
	err    error // the error reading it
	found  int   // messages read from the file
	ok     bool  // every message read gave a report
	outEnd int   // where its output ends in the batch's out
	errEnd int   // where its diagnostics end in the batch's errOut
	// mbox is set when the file is an mbox too large to be read whole: its
	// messages are read and explained in turn by the writer, one at a time,
	// and its output written as it is made.
	mbox     *bufio.Reader
	mboxFile *os.File
}

// explainItems recycles explainItems and their buffers across batches.
var explainItems = sync.Pool{New: func() any { return &explainItem{done: make(chan struct{})} }}

func newExplainItem(kind explainItemKind, name string) *explainItem {
	it := explainItems.Get().(*explainItem)
	it.kind, it.name = kind, name
	return it
}

func releaseExplainItem(it *explainItem) {
	it.err, it.listed = nil, false
	clear(it.files)
	it.files = it.files[:0]
	it.out.Reset()
	it.errOut.Reset()
	if it.out.Cap() > maxPooledOutput || it.errOut.Cap() > maxPooledOutput {
		// The output of an odd batch is not kept for the rest of the run.
		it.out, it.errOut = bytes.Buffer{}, bytes.Buffer{}
	}
	if it.kind == itemFiles {
		it.done = make(chan struct{})
	}
	explainItems.Put(it)
}

// explainInputs explains every message of inputs, in order, to out, and
// reports false when a message or a file could not be read. Files are read
// and explained by GOMAXPROCS workers, explainBatchFiles at a time; the
// output is written in the order of the inputs, the same bytes as one
// message after the other would give. At most explainFilesInFlight batches
// per worker are in flight at a time.
func explainInputs(inputs []string, stdin io.Reader, out, stderr io.Writer, engine *rules.Engine, o *explainOptions) bool {
	workers := runtime.GOMAXPROCS(0)
	order := make(chan *explainItem, workers*explainFilesInFlight)
	work := make(chan *explainItem, workers*explainFilesInFlight)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The worker's buffer for the files it reads: nothing of a
			// message is kept once it is explained.
			var buf []byte
			for it := range work {
				for i := range it.files {
					buf = explainFile(it, &it.files[i], engine, o, buf)
				}
				close(it.done)
			}
		}()
	}
	go func() {
		defer close(work)
		defer close(order)
		listInputs(inputs, func(it *explainItem) {
			// Read before it is sent: the writer may recycle an item that
			// is not a batch of files as soon as it has it.
			isFiles := it.kind == itemFiles
			order <- it
			if isFiles {
				work <- it
			}
		})
	}()

	ok := true
	fail := func(err error) {
		fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
		ok = false
	}
	found, dirFound := 0, 0
	emit := func(m inputMessage) {
		found++
		dirFound++
		if !explainMessage(out, m, engine, o, stderr) {
			ok = false
		}
	}
	for it := range order {
		switch it.kind {
		case itemFailure:
			fail(it.err)
		case itemStdin:
			if _, err := readMessages("-", stdin, emit); err != nil {
				fail(err)
			}
		case itemDirBegin:
			dirFound = 0
		case itemDirEnd:
			if dirFound == 0 && it.listed {
				fail(fmt.Errorf("%s: no message in this directory", it.name))
			}
		case itemFiles:
			<-it.done
			outAt, errAt := 0, 0
			for i := range it.files {
				f := &it.files[i]
				if f.errEnd > errAt {
					// Not an empty write: it would still be a system call.
					stderr.Write(it.errOut.Bytes()[errAt:f.errEnd])
				}
				out.Write(it.out.Bytes()[outAt:f.outEnd])
				outAt, errAt = f.outEnd, f.errEnd
				found += f.found
				dirFound += f.found
				if !f.ok {
					ok = false
				}
				if f.mbox != nil {
					_, err := readMbox(f.name, f.mbox, emit)
					f.mboxFile.Close()
					if err != nil {
						f.err = err
					}
				}
				if f.err != nil {
					fail(f.err)
				}
			}
		}
		releaseExplainItem(it)
	}
	wg.Wait()
	return ok
}

// listInputs calls send with the items of each input, in order: a message
// file or an mbox file, a directory (each regular file in it, in name
// order), a Maildir (the messages of cur/ and new/, in name order), or "-"
// for standard input (a message or an mbox), and a failure for each input
// that cannot be read. Files that follow one another go in batches of
// explainBatchFiles.
func listInputs(inputs []string, send func(*explainItem)) {
	var batch *explainItem
	flush := func() {
		if batch != nil {
			send(batch)
			batch = nil
		}
	}
	sendFile := func(name string) {
		if batch == nil {
			batch = newExplainItem(itemFiles, "")
		}
		batch.files = append(batch.files, explainedFile{name: name})
		if len(batch.files) == explainBatchFiles {
			flush()
		}
	}
	sendItem := func(it *explainItem) {
		flush()
		send(it)
	}
	failure := func(err error) {
		it := newExplainItem(itemFailure, "")
		it.err = err
		sendItem(it)
	}
	for _, arg := range inputs {
		if arg == "-" {
			sendItem(newExplainItem(itemStdin, "-"))
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			failure(err)
			continue
		}
		if !fi.IsDir() {
			sendFile(arg)
			continue
		}
		files, err := directoryMessages(arg)
		if err != nil {
			failure(err)
		}
		sendItem(newExplainItem(itemDirBegin, arg))
		for _, f := range files {
			sendFile(f)
		}
		end := newExplainItem(itemDirEnd, arg)
		end.listed = err == nil
		sendItem(end)
	}
	flush()
}

// explainFile reads and explains the file f of the batch it into the
// batch's buffers; an mbox file too large to be read whole is left open
// for the writer to read in turn. It reads the file into buf's array, and
// returns the array to read the next file into (none when it grew beyond
// maxPooledInput).
func explainFile(it *explainItem, f *explainedFile, engine *rules.Engine, o *explainOptions, buf []byte) []byte {
	defer func() { f.outEnd, f.errEnd = it.out.Len(), it.errOut.Len() }()
	f.ok = true
	rd, err := readExplainFile(f.name, buf)
	if cap(rd.raw) <= maxPooledInput {
		buf = rd.raw[:0]
	} else {
		buf = nil
	}
	switch {
	case err != nil:
		f.err = err
	case rd.stream != nil:
		f.mbox, f.mboxFile = rd.stream, rd.streamFile
	case rd.isMbox:
		// A small mbox is read from memory, the same as a stream of it.
		br := bufio.NewReaderSize(bytes.NewReader(rd.raw), min(max(len(rd.raw), 16), 64<<10))
		f.found, f.err = readMbox(f.name, br, func(m inputMessage) {
			if !explainMessage(&it.out, m, engine, o, &it.errOut) {
				f.ok = false
			}
		})
	default:
		f.found = 1
		f.ok = explainMessage(&it.out, inputMessage{file: f.name, raw: rd.raw}, engine, o, &it.errOut)
	}
	return buf
}
