package backscatter

import (
	"slices"
	"strings"
)

// Limits on what the Received lines of one report can make a judgement look up.
const (
	maxQueueIDLookups = 5
	maxReceived       = 20
)

// queueIDs returns the distinct queue ids named in the Received lines: the
// word after "id" (RFC 5321 section 4.4, the "id" clause), e.g.
// "... with ESMTPSA id 4dLm2x0Q1Rz9 for <b@c>; ...".
func queueIDs(received []string) []string {
	var ids []string
	for i, r := range received {
		if i == maxReceived {
			break
		}
		for n := 0; n < 2; n++ {
			id, rest := nextReceivedID(r)
			if id == "" {
				break
			}
			r = rest
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) >= maxQueueIDLookups {
			return ids[:maxQueueIDLookups]
		}
	}
	return ids
}

// nextReceivedID finds the next "id ID" clause in r and returns ID (without
// angle brackets, 5 to 64 characters of [A-Za-z0-9._-]) and the rest of r.
func nextReceivedID(r string) (string, string) {
	for i := 0; i+3 < len(r); i++ {
		if (r[i] != 'i' && r[i] != 'I') || (r[i+1] != 'd' && r[i+1] != 'D') {
			continue
		}
		if i > 0 && !strings.ContainsRune(" \t\r\n;(", rune(r[i-1])) {
			continue
		}
		j := i + 2
		if r[j] != ' ' && r[j] != '\t' && r[j] != '\n' && r[j] != '\r' {
			continue
		}
		for j < len(r) && (r[j] == ' ' || r[j] == '\t' || r[j] == '\n' || r[j] == '\r') {
			j++
		}
		if j < len(r) && r[j] == '<' {
			j++
		}
		k := j
		for k < len(r) && k-j <= 64 && isIDChar(r[k], k == j) {
			k++
		}
		if n := k - j; n >= 5 && n <= 64 {
			return r[j:k], r[k:]
		}
	}
	return "", ""
}

func isIDChar(c byte, first bool) bool {
	switch {
	case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		return true
	case c == '.' || c == '_' || c == '-':
		return !first
	}
	return false
}
