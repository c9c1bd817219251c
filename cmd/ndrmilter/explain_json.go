package main

import (
	"strconv"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/rules"
)

// appendRecordJSON appends rec as one line of JSON, the same bytes as
// encoding/json's Encoder writes for it (keys in field order, omitempty
// honoured, <, > and & escaped, a newline at the end), without reflection:
// encoding it through reflection was a tenth of explain's own work per
// record. TestRecordJSONIsEncodingJSONs holds the two together, for every
// field of explainRecord.
func appendRecordJSON(b []byte, rec *explainRecord) []byte {
	b = append(b, `{"file":`...)
	b = appendJSONString(b, rec.File)
	if rec.Message != 0 {
		b = append(b, `,"message":`...)
		b = strconv.AppendInt(b, int64(rec.Message), 10)
	}
	b = appendJSONField(b, "kind", rec.Kind)
	b = appendJSONField(b, "format", rec.Format)
	b = appendJSONField(b, "recipient", rec.Recipient)
	if rec.OriginalRecipient != "" {
		b = appendJSONField(b, "original_recipient", rec.OriginalRecipient)
	}
	if rec.ForwardedTo != "" {
		b = appendJSONField(b, "forwarded_to", rec.ForwardedTo)
	}
	b = appendJSONField(b, "action", string(rec.Action))
	if rec.Command != "" {
		b = appendJSONField(b, "command", rec.Command)
	}
	b = appendJSONField(b, "status", rec.Status)
	b = appendJSONField(b, "status_source", string(rec.StatusSource))
	b = appendJSONField(b, "reply_code", rec.ReplyCode)
	b = appendJSONField(b, "reason", string(rec.Reason))
	b = append(b, `,"hard_bounce":`...)
	b = strconv.AppendBool(b, rec.HardBounce)
	b = append(b, `,"permanent":`...)
	b = strconv.AppendBool(b, rec.Permanent)
	b = appendJSONField(b, "owner", string(rec.Owner))
	b = appendJSONField(b, "summary", rec.Summary)
	b = appendJSONField(b, "explanation", rec.Explanation)
	b = appendJSONField(b, "fix", rec.Fix)
	b = appendJSONField(b, "remote_mta", rec.RemoteMTA)
	b = appendJSONField(b, "reporting_mta", rec.ReportingMTA)
	b = appendJSONField(b, "diagnostic", rec.Diagnostic)
	b = appendJSONField(b, "reply", rec.Reply)
	b = appendJSONField(b, "original_message_id", rec.OriginalMessageID)
	b = appendJSONField(b, "original_from", rec.OriginalFrom)
	b = appendJSONField(b, "original_to", rec.OriginalTo)
	b = appendJSONField(b, "original_subject", rec.OriginalSubject)
	b = appendJSONField(b, "rule", rec.Rule)
	b = appendJSONField(b, "matched", rec.Matched)
	b = append(b, `,"facts":{`...)
	n := 0
	rec.Facts.Each(func(f rules.Fact, v string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendJSONString(b, string(f))
		b = append(b, ':')
		b = appendJSONString(b, v)
	})
	b = append(b, '}')
	if w := rec.Why; w != nil {
		b = append(b, `,"why":{"matches":[`...)
		for i, m := range w.Matches {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"rule":`...)
			b = appendJSONString(b, m.Rule)
			b = appendJSONField(b, "file", m.File)
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(m.Line), 10)
			b = appendJSONField(b, "matched", m.Matched)
			b = appendJSONField(b, "reason", string(m.Reason))
			b = append(b, `,"decided":`...)
			b = strconv.AppendBool(b, m.Decided)
			b = append(b, '}')
		}
		if w.Matches == nil {
			// encoding/json writes a nil slice as null.
			b = append(b[:len(b)-1], "null"...)
		} else {
			b = append(b, ']')
		}
		if len(w.Facts) > 0 {
			b = append(b, `,"facts":[`...)
			for i, f := range w.Facts {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"fact":`...)
				b = appendJSONString(b, string(f.Fact))
				b = appendJSONField(b, "value", f.Value)
				b = appendJSONField(b, "from", f.From)
				b = appendJSONField(b, "file", f.File)
				b = append(b, `,"line":`...)
				b = strconv.AppendInt(b, int64(f.Line), 10)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "}\n"...)
}

// appendJSONField appends `,"key":` and the string value.
func appendJSONField(b []byte, key, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendJSONString(b, value)
}

// jsonSafeASCII has bit c%64 of word c/64 set for each ASCII byte c that
// appendJSONString copies as it is: printable (0x20 and above, DEL
// included, as encoding/json's htmlSafeSet), and none of ", \, <, > and &.
// One test per byte rather than seven comparisons, and jsonPlainLen's
// eight at a time: the strings were 4% of the instructions of explain
// --json (issue 14).
var jsonSafeASCII = [2]uint64{
	0xffffffff_00000000 &^ (1<<'"' | 1<<'&' | 1<<'<' | 1<<'>'),
	^uint64(0) &^ (1 << ('\\' - 64)),
}

// jsonPlainLen returns how many bytes at the start of s appendJSONString
// copies as they are (jsonSafeASCII), testing eight at a time while none
// of them needs a look (the strings are mostly plain text). A word is
// flagged when one of its bytes is 0x80 or above (its high bit), below
// 0x20 ((w-0x20..) &^ w & 0x80.. is not zero exactly then), or one of the
// five escaped characters (a zero byte in w xor that character repeated,
// found the same way); the bytes of a flagged word are then tested one by
// one.
func jsonPlainLen(s string) int {
	const oneBytes, highBytes = 0x0101010101010101, 0x8080808080808080
	// zeroBytes is not zero exactly when a byte of x is zero.
	zeroBytes := func(x uint64) uint64 { return (x - oneBytes) &^ x & highBytes }
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8]
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		flag := w&highBytes | (w-0x20*oneBytes)&^w&highBytes |
			zeroBytes(w^'"'*oneBytes) | zeroBytes(w^'\\'*oneBytes) | zeroBytes(w^'<'*oneBytes) |
			zeroBytes(w^'>'*oneBytes) | zeroBytes(w^'&'*oneBytes)
		if flag != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || jsonSafeASCII[c>>6]>>(c&63)&1 == 0 {
			break
		}
	}
	return i
}

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping on (its default): quote, backslash and control
// characters escaped, <, > and & as \u003c, \u003e and \u0026, invalid
// UTF-8 as \ufffd, and U+2028 and U+2029 escaped (RFC 8259, section 7).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += jsonPlainLen(s[i:]); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
