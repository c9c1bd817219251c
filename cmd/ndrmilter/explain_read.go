package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
)

// explainReadChunk is the buffer a worker starts with, and the least it
// grows by: more than almost every bounce.
const explainReadChunk = 64 << 10

// maxMemoryMbox is the largest mbox file a worker reads whole and explains
// itself; a larger one is streamed, one message at a time, by the writer.
const maxMemoryMbox = maxPooledInput

// fileReading is what readExplainFile read of a file.
type fileReading struct {
	// raw is the file (at most maxExplainInput bytes of a message file,
	// the whole of an mbox file of at most maxMemoryMbox bytes).
	raw []byte
	// isMbox is set when the file starts with a "From " line.
	isMbox bool
	// stream, when not nil, reads a larger mbox file from its start; its
	// file must be closed when it is read.
	stream     *bufio.Reader
	streamFile *os.File
}

// readExplainFile reads the file name into dst's array (grown when it is too
// small) with the fewest system calls: open, read until end of file, close
// (os.Open adds four fcntl calls and an epoll registration that a regular
// file refuses: near half of what opening cost, perf over the shared
// corpus). The errors say what os.Open and os.File.Read would have said.
func readExplainFile(name string, dst []byte) (fileReading, error) {
	fd, err := openReadOnly(name)
	if err != nil {
		return fileReading{}, err
	}
	raw, eof, err := readFD(fd, dst[:0], maxMemoryMbox)
	isMbox := bytes.HasPrefix(raw, mboxFromLine)
	if err == nil && !eof {
		if isMbox {
			// An mbox larger than a worker keeps: the writer reads it
			// from its start, again (a regular file), or from a copy of
			// what was read and then on (a pipe).
			f := os.NewFile(uintptr(fd), name)
			var r io.Reader = f
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				r = io.MultiReader(bytes.NewReader(bytes.Clone(raw)), f)
			}
			return fileReading{raw: raw, isMbox: true, streamFile: f, stream: bufio.NewReaderSize(r, 64<<10)}, nil
		}
		// Whatever is beyond the cap is not read: reports put what
		// matters first.
		raw, _, err = readFD(fd, raw, maxExplainInput)
	}
	closeFD(fd)
	if err != nil {
		return fileReading{raw: raw}, fmt.Errorf("%s: %v", name, &os.PathError{Op: "read", Path: name, Err: err})
	}
	return fileReading{raw: raw, isMbox: isMbox}, nil
}

// openReadOnly opens name for reading, as os.Open but without registering
// the descriptor with the poller.
func openReadOnly(name string) (int, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, nil
	}
}

func closeFD(fd int) { syscall.Close(fd) }

// readFD appends what fd holds to dst until end of file or until dst holds
// limit bytes; eof reports the end of the file.
func readFD(fd int, dst []byte, limit int) (_ []byte, eof bool, _ error) {
	for len(dst) < limit {
		if len(dst) == cap(dst) {
			grown := make([]byte, len(dst), min(max(2*cap(dst), explainReadChunk), limit+1))
			copy(grown, dst)
			dst = grown
		}
		n, err := syscall.Read(fd, dst[len(dst):min(cap(dst), limit)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return dst, false, err
		}
		if n == 0 {
			return dst, true, nil
		}
		dst = dst[:len(dst)+n]
	}
	return dst, false, nil
}
