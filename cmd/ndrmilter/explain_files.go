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

// explainFilesInFlight is how many inputs per worker may be read, explained
// or waiting for their turn to be written at a time: it bounds explain's
// memory (each holds at most one message of maxExplainInput bytes while it
// is explained, and its output after) and keeps the workers busy while the
// output of an earlier, slower input is awaited.
const explainFilesInFlight = 4

// maxPooledOutput is the largest output buffer kept for the next file,
// and maxPooledInput the largest message buffer a worker keeps.
const (
	maxPooledOutput = 1 << 20
	maxPooledInput  = 1 << 20
)

// explainItemKind says what an explainItem stands for.
type explainItemKind uint8

const (
	itemFile     explainItemKind = iota // a file, read and explained by a worker
	itemStdin                           // standard input, read in turn by the writer
	itemFailure                         // an error to report in turn
	itemDirBegin                        // the files of a directory follow
	itemDirEnd                          // the files of the directory named are done
)

// explainItem is one input of explain on its way from the arguments to the
// output, in the order of the arguments.
type explainItem struct {
	kind explainItemKind
	name string // the file, or the directory of itemDirEnd
	err  error  // itemFailure's error; for itemFile, the error reading it
	// listed is set on itemDirEnd when the directory could be listed.
	listed bool

	done   chan struct{} // closed when a worker is done with an itemFile
	found  int           // messages read from the file
	ok     bool          // every message read gave a report
	out    bytes.Buffer  // the file's output
	errOut bytes.Buffer  // the file's diagnostics
	// mbox is set when the file is an mbox: its messages are read and
	// explained in turn by the writer, one at a time (an mbox can be
	// large, and its output is written as it is made).
	mbox     *bufio.Reader
	mboxFile *os.File
}

// explainItems recycles explainItems and their buffers across files.
var explainItems = sync.Pool{New: func() any { return &explainItem{done: make(chan struct{})} }}

func newExplainItem(kind explainItemKind, name string) *explainItem {
	it := explainItems.Get().(*explainItem)
	it.kind, it.name = kind, name
	return it
}

func releaseExplainItem(it *explainItem) {
	it.err, it.listed, it.found, it.ok = nil, false, 0, false
	it.out.Reset()
	it.errOut.Reset()
	if it.out.Cap() > maxPooledOutput || it.errOut.Cap() > maxPooledOutput {
		// The output of an odd file is not kept for the rest of the run.
		it.out, it.errOut = bytes.Buffer{}, bytes.Buffer{}
	}
	it.mbox, it.mboxFile = nil, nil
	if it.kind == itemFile {
		it.done = make(chan struct{})
	}
	explainItems.Put(it)
}

// explainInputs explains every message of inputs, in order, to out, and
// reports false when a message or a file could not be read. Files are read
// and explained by GOMAXPROCS workers; the output is written in the order
// of the inputs, the same bytes as one message after the other would give.
// At most explainFilesInFlight inputs per worker are in flight at a time.
func explainInputs(inputs []string, stdin io.Reader, out, stderr io.Writer, engine *rules.Engine, o *explainOptions) bool {
	workers := runtime.GOMAXPROCS(0)
	order := make(chan *explainItem, workers*explainFilesInFlight)
	work := make(chan *explainItem)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The worker's buffer for the files it reads: nothing of a
			// message is kept once it is explained.
			var buf []byte
			for it := range work {
				buf = explainFile(it, engine, o, buf)
				close(it.done)
			}
		}()
	}
	go func() {
		defer close(work)
		defer close(order)
		listInputs(inputs, func(it *explainItem) {
			// Read before it is sent: the writer may recycle an item that
			// is not a file as soon as it has it.
			isFile := it.kind == itemFile
			order <- it
			if isFile {
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
		case itemFile:
			<-it.done
			stderr.Write(it.errOut.Bytes())
			out.Write(it.out.Bytes())
			found += it.found
			dirFound += it.found
			if !it.ok {
				ok = false
			}
			if it.mbox != nil {
				_, err := readMbox(it.name, it.mbox, emit)
				it.mboxFile.Close()
				if err != nil {
					it.err = err
				}
			}
			if it.err != nil {
				fail(it.err)
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
// that cannot be read.
func listInputs(inputs []string, send func(*explainItem)) {
	failure := func(err error) {
		it := newExplainItem(itemFailure, "")
		it.err = err
		send(it)
	}
	for _, arg := range inputs {
		if arg == "-" {
			send(newExplainItem(itemStdin, "-"))
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			failure(err)
			continue
		}
		if !fi.IsDir() {
			send(newExplainItem(itemFile, arg))
			continue
		}
		files, err := directoryMessages(arg)
		if err != nil {
			failure(err)
		}
		send(newExplainItem(itemDirBegin, arg))
		for _, f := range files {
			send(newExplainItem(itemFile, f))
		}
		end := newExplainItem(itemDirEnd, arg)
		end.listed = err == nil
		send(end)
	}
}

// explainFile reads and explains the file of it into its buffers; an mbox
// file is left open for the writer to read in turn. It reads the file into
// buf's array when it fits, and returns the array to read the next file
// into (none when it grew beyond maxPooledInput).
func explainFile(it *explainItem, engine *rules.Engine, o *explainOptions, buf []byte) []byte {
	it.ok = true
	f, err := os.Open(it.name)
	if err != nil {
		it.err = err
		return buf
	}
	raw, mbox, err := readSingle(it.name, f, buf)
	if mbox != nil {
		it.mbox, it.mboxFile = mbox, f
		return buf
	}
	f.Close()
	if err != nil {
		it.err = err
		return buf
	}
	it.found = 1
	it.ok = explainMessage(&it.out, inputMessage{file: it.name, raw: raw}, engine, o, &it.errOut)
	if cap(raw) > maxPooledInput {
		return nil
	}
	return raw[:0]
}
