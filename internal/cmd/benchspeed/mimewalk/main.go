// Command mimewalk is the reference of "make bench-speed" for "ndrmilter
// explain": it reads the same files and walks their MIME structure with the
// standard library (net/mail, mime, mime/multipart), reading every part and
// the messages attached as message/rfc822, and does nothing else. ndrmilter
// explain does this much and then reads the report, classifies it and writes
// JSON; the ratio of the two is what understanding a bounce costs over
// opening it.
//
//	mimewalk DIR|FILE...
//
// It prints the number of messages and parts it read.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
)

// maxDepth bounds the nesting walked, as ndrmilter's parser bounds it.
const maxDepth = 10

// maxInput caps what is read of one file, as ndrmilter explain does (64 MiB).
const maxInput = 64 << 20

func main() {
	var messages, parts int
	for _, arg := range os.Args[1:] {
		files := []string{arg}
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			entries, err := os.ReadDir(arg)
			if err != nil {
				fmt.Fprintf(os.Stderr, "mimewalk: %v\n", err)
				os.Exit(1)
			}
			files = files[:0]
			for _, e := range entries {
				if e.Type().IsRegular() {
					files = append(files, filepath.Join(arg, e.Name()))
				}
			}
		}
		for _, f := range files {
			data, err := readFile(f)
			if err != nil {
				fmt.Fprintf(os.Stderr, "mimewalk: %v\n", err)
				os.Exit(1)
			}
			messages++
			parts += walkMessage(bytes.NewReader(data), 0)
		}
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "%d messages, %d parts\n", messages, parts)
	w.Flush()
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxInput))
}

// walkMessage reads a message and its parts; it returns the parts read.
func walkMessage(r io.Reader, depth int) int {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return 0
	}
	return walkPart(m.Header.Get("Content-Type"), m.Body, depth)
}

// walkPart reads a part of the given type: the parts of a multipart, the
// message of a message/rfc822, else its body.
func walkPart(contentType string, body io.Reader, depth int) int {
	mediaType, params, _ := mime.ParseMediaType(contentType)
	switch {
	case depth < maxDepth && strings.HasPrefix(mediaType, "multipart/") && params["boundary"] != "":
		n := 1
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err != nil {
				break
			}
			n += walkPart(p.Header.Get("Content-Type"), p, depth+1)
		}
		return n
	case depth < maxDepth && (mediaType == "message/rfc822" || mediaType == "message/global"):
		return 1 + walkMessage(body, depth+1)
	}
	io.Copy(io.Discard, body)
	return 1
}
