package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// mboxFromLine starts every message of an mbox file (RFC 4155, section 2).
var mboxFromLine = []byte("From ")

// mboxReader splits an mbox file into its messages as it reads, never
// holding more than one message (and at most max bytes of it) in memory.
//
// RFC 4155: a message starts with a "From " line at the start of the file or
// after an empty line; that line and the empty line before it belong to the
// mbox, not to the message. Lines quoted as ">From " (mboxrd and mboxo
// writers quote "From " lines of a body) lose one ">".
type mboxReader struct {
	br  *bufio.Reader
	max int
	// more is set while a "From " line has been read whose message has not
	// been returned yet.
	more bool
	// started is set once the first "From " line was read.
	started bool
}

// newMboxReader reads the mbox in br, keeping at most max bytes of each
// message (the head: what matters in a report comes first).
func newMboxReader(br *bufio.Reader, max int) *mboxReader {
	return &mboxReader{br: br, max: max}
}

// errNotMbox is returned when the input does not start with a "From " line.
var errNotMbox = errors.New(`not an mbox file: it does not start with a "From " line`)

// Next returns the next message, or io.EOF after the last one.
func (m *mboxReader) Next() ([]byte, error) {
	if !m.started {
		m.started = true
		head, err := m.br.Peek(len(mboxFromLine))
		if err != nil || !bytes.Equal(head, mboxFromLine) {
			return nil, errNotMbox
		}
		if err := m.skipLine(); err != nil && err != io.EOF {
			return nil, err
		}
		m.more = true
	}
	if !m.more {
		return nil, io.EOF
	}
	var msg []byte
	atLineStart, prevBlank := true, false
	for {
		chunk, err := m.br.ReadSlice('\n')
		if len(chunk) > 0 {
			if atLineStart && prevBlank && bytes.HasPrefix(chunk, mboxFromLine) {
				// The next message's separator: finish its line and stop here.
				if chunk[len(chunk)-1] != '\n' {
					if serr := m.skipLine(); serr != nil && serr != io.EOF {
						return nil, serr
					}
				}
				return trimSeparatorBlank(msg), nil
			}
			line := chunk
			if atLineStart && isQuotedFrom(line) {
				line = line[1:]
			}
			whole := line[len(line)-1] == '\n'
			blank := atLineStart && whole && (len(line) == 1 || (len(line) == 2 && line[0] == '\r'))
			if room := m.max - len(msg); room > 0 {
				msg = append(msg, line[:min(room, len(line))]...)
			}
			prevBlank = blank
			atLineStart = whole
		}
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			m.more = false
			return trimSeparatorBlank(msg), nil
		default:
			return nil, err
		}
	}
}

// skipLine reads up to and including the next newline.
func (m *mboxReader) skipLine() error {
	for {
		_, err := m.br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// isQuotedFrom reports whether line is a quoted "From " line: one or more
// ">" then "From ".
func isQuotedFrom(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(line[i:], mboxFromLine)
}

// trimSeparatorBlank drops the empty line that ends a message in an mbox:
// it belongs to the separator.
func trimSeparatorBlank(msg []byte) []byte {
	switch {
	case bytes.HasSuffix(msg, []byte("\r\n\r\n")):
		return msg[:len(msg)-2]
	case bytes.HasSuffix(msg, []byte("\n\n")):
		return msg[:len(msg)-1]
	}
	return msg
}
