package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// kind is what a message is as far as delivery reporting goes; the values are
// those of `ndrmilter explain --json` (dsn.Kind).
type kind string

// Kinds the scorer treats specially.
const (
	kindBounce    kind = "bounce"
	kindDelay     kind = "delay"
	kindDelivered kind = "delivered"
)

// failureKind reports whether k says a recipient failed or is failing: the
// kinds that count as "recognised as a bounce or delay".
func failureKind(k kind) bool { return k == kindBounce || k == kindDelay }

// bounceLikeKind reports whether k is a delivery report of any outcome: a
// non-bounce printed with one of these kinds was called a bounce (the test of
// ../shared/tools/corpus-score).
func bounceLikeKind(k kind) bool { return failureKind(k) || k == kindDelivered }

// calledBounce reports whether printing kind got for a non-bounce whose truth
// kind is want calls it a bounce. A success report (truth "delivered") printed
// as delivered is right, not a bounce: only a failure kind calls it one; for
// every other non-bounce any delivery report kind does.
func calledBounce(want, got kind) bool {
	if want == kindDelivered {
		return failureKind(got)
	}
	return bounceLikeKind(got)
}

// truthRecord is one line of a truth file: the format of
// ../shared/corpus/sisimai/truth.jsonl ({"file", "index", "recipient",
// "status", "reply_code", "reason", "hard_bounce"} or {"file", "index": 0,
// "not_a_bounce": true}) with the keys internal/testdata/bounces adds: "kind",
// "permanent", "family", "status_inferred_ok", "note" and, for mbox files,
// "message".
type truthRecord struct {
	File       string `json:"file"`
	Index      int    `json:"index"`
	Recipient  string `json:"recipient"`
	Status     string `json:"status"`
	ReplyCode  string `json:"reply_code"`
	Reason     string `json:"reason"`
	HardBounce bool   `json:"hard_bounce"`
	NotABounce bool   `json:"not_a_bounce"`
	Kind       kind   `json:"kind"`
	// Permanent is nil when the truth file does not say (the shared corpus).
	Permanent *bool  `json:"permanent"`
	Family    string `json:"family"`
	// StatusInferredOK marks a record whose message gives no precise code:
	// a status ndrmilter inferred (a pseudo-code such as 5.0.911, or one
	// marked "status_source": "inferred") is acceptable there.
	StatusInferredOK bool   `json:"status_inferred_ok"`
	Note             string `json:"note"`
	Message          int    `json:"message"`
}

// family returns the record's family, or the file name without its "-NN.eml"
// suffix when the truth file does not name one.
func (t truthRecord) family() string {
	if t.Family != "" {
		return t.Family
	}
	name := strings.TrimSuffix(t.File, path.Ext(t.File))
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		return name[:i]
	}
	return name
}

// readTruth reads a truth file: one JSON object per line, blank lines skipped.
func readTruth(r io.Reader) ([]truthRecord, error) {
	var out []truthRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var t truthRecord
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			return nil, fmt.Errorf("truth line %d: expected a JSON object, got %q: %v", n, abbreviate(line, 60), err)
		}
		if t.File == "" {
			return nil, fmt.Errorf("truth line %d: expected a \"file\", got none", n)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// explainRecord is the part of one `ndrmilter explain --json` line the
// scorer reads.
type explainRecord struct {
	File       string `json:"file"`
	Kind       kind   `json:"kind"`
	Recipient  string `json:"recipient"`
	Status     string `json:"status"`
	ReplyCode  string `json:"reply_code"`
	Reason     string `json:"reason"`
	HardBounce bool   `json:"hard_bounce"`
	Permanent  bool   `json:"permanent"`
	// StatusSource is "server" or "inferred" once explain prints it (issue 8,
	// item 6); "" before.
	StatusSource string `json:"status_source"`
}

// readExplain reads explain's JSON lines, grouped by the base name of "file".
// Lines that are not JSON objects are counted, not fatal: a crash message on
// stdout must not hide the records before it.
func readExplain(r io.Reader) (map[string][]explainRecord, int, error) {
	got := make(map[string][]explainRecord)
	bad := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e explainRecord
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			bad++
			continue
		}
		base := filepath.Base(e.File)
		got[base] = append(got[base], e)
	}
	return got, bad, sc.Err()
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
