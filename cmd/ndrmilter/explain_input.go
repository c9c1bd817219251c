package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// inputMessage is one message that explain reads.
type inputMessage struct {
	file  string // the file it came from; "-" for standard input
	index int    // its position in an mbox file, from 1; 0 for a file of one message
	raw   []byte // at most maxExplainInput bytes
}

// label names the message in explain's output: the file, and FILE#N for
// the Nth message of an mbox.
func (m inputMessage) label() string {
	if m.index == 0 {
		return m.file
	}
	return fmt.Sprintf("%s#%d", m.file, m.index)
}

// readMessages reads r as an mbox when it starts with a "From " line, else
// as one message.
func readMessages(name string, r io.Reader, emit func(inputMessage)) (int, error) {
	raw, br, err := readSingle(name, r, nil)
	if err != nil {
		return 0, err
	}
	if br == nil {
		emit(inputMessage{file: name, raw: raw})
		return 1, nil
	}
	return readMbox(name, br, emit)
}

// readSingle reads r whole when it is one message, into dst's array when
// it is large enough; when r is an mbox (it starts with a "From " line) it
// returns a reader of it from its start instead, for readMbox.
func readSingle(name string, r io.Reader, dst []byte) (raw []byte, mbox *bufio.Reader, err error) {
	var head [len("From ")]byte // mboxFromLine
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	size := sizeOf(r)
	if bytes.Equal(head[:n], mboxFromLine) {
		rest := io.MultiReader(bytes.NewReader(head[:n]), r)
		return nil, bufio.NewReaderSize(rest, int(min(max(size, 16), 64<<10))), nil
	}
	// The file is read straight into a buffer that fits it (its size is
	// known): a bounce is a few kB, and explain reads hundreds of them; a
	// reader's buffer, a copy from it and a growing ReadAll per file were
	// a tenth of its time (perf, over the shared corpus).
	buf := bytes.NewBuffer(append(dst[:0], head[:n]...))
	buf.Grow(int(min(size, maxExplainInput)) + bytes.MinRead)
	if n == len(head) {
		if _, err := buf.ReadFrom(io.LimitReader(r, maxExplainInput-int64(n))); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	// Whatever is beyond the cap is not read: reports put what matters first.
	return buf.Bytes(), nil, nil
}

// readMbox reads the messages of the mbox in br, one at a time.
func readMbox(name string, br *bufio.Reader, emit func(inputMessage)) (int, error) {
	mr := newMboxReader(br, maxExplainInput)
	n := 0
	for {
		raw, err := mr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("%s: message %d: %v", name, n+1, err)
		}
		n++
		emit(inputMessage{file: name, index: n, raw: raw})
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no message in this mbox file", name)
	}
	return n, nil
}

// directoryMessages lists the files of a directory to read: for a Maildir
// (a directory with cur/ and new/), the files of cur/ and new/ in name order
// (Maildir names start with the delivery time); otherwise the regular files
// of the directory itself in name order. Subdirectories are not entered.
func directoryMessages(dir string) ([]string, error) {
	if isDir(filepath.Join(dir, "cur")) && isDir(filepath.Join(dir, "new")) {
		var all []string
		for _, sub := range []string{"cur", "new"} {
			files, err := regularFiles(filepath.Join(dir, sub))
			if err != nil {
				return all, err
			}
			all = append(all, files...)
		}
		sort.SliceStable(all, func(i, j int) bool { return filepath.Base(all[i]) < filepath.Base(all[j]) })
		return all, nil
	}
	return regularFiles(dir)
}

// regularFiles lists the regular files in dir (links followed), by name.
func regularFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type().IsRegular():
			// The directory entry says so: no stat for it.
			out = append(out, p)
		case e.Type()&fs.ModeSymlink != 0:
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out = append(out, p)
			}
		}
	}
	return out, nil // os.ReadDir sorts by name
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// sizeOf is the size of r when it is a regular file, else 64 KiB (a pipe,
// standard input).
func sizeOf(r io.Reader) int64 {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 64 << 10
}
