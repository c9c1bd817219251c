package rules

import (
	"math"
	"strconv"
	"strings"
)

// The attachment budget of a size limit. Attachments travel base64-encoded
// (RFC 2045 section 6.8: 4 characters for every 3 bytes, plus a line break
// every 76 characters), so a file takes about 4/3 of its size in the
// message: under a 19.5 MB limit, the files themselves must stay under
// about 14 MB. The size-limit fixes say so, with the figure computed from
// the limit the server stated.

// budgetShare is the part of a size limit that attachments may take once
// encoded: 3/4 (base64's 4/3, the line breaks and the message's own text
// make it a little less; the figure is rounded down).
const budgetShare = 0.75

// attachmentBudget returns about three quarters of a size limit as the
// limit fact states it ("19.5 MB", "10 MB (10485760 bytes)", "20480 KB",
// "19,5 MB"), rounded down, in the limit's own unit: "14 MB", "7.5 MB",
// "15360 KB". It returns "" when the limit states no size (a number of
// recipients, a number without a unit) or one too small to say.
func attachmentBudget(limit string) string {
	s := strings.TrimSpace(limit)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] == ',') {
		end++
	}
	num, rest := s[:end], strings.ToLower(strings.TrimSpace(s[end:]))
	if num == "" {
		return ""
	}
	// "19,5" is a decimal comma; "10,485,760" groups thousands.
	if k := strings.LastIndexByte(num, ','); k >= 0 {
		if len(num)-k-1 == 3 && !strings.Contains(num, ".") {
			num = strings.ReplaceAll(num, ",", "")
		} else {
			num = strings.ReplaceAll(num, ",", ".")
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return ""
	}
	var unit string
	switch {
	case strings.HasPrefix(rest, "gib"), strings.HasPrefix(rest, "gb"), strings.HasPrefix(rest, "gigabyte"):
		unit = "GB"
	case strings.HasPrefix(rest, "mib"), strings.HasPrefix(rest, "mb"), strings.HasPrefix(rest, "megabyte"):
		unit = "MB"
	case strings.HasPrefix(rest, "kib"), strings.HasPrefix(rest, "kb"), strings.HasPrefix(rest, "kilobyte"):
		unit = "KB"
	case strings.HasPrefix(rest, "byte"):
		v, unit = v/(1<<20), "MB"
	default:
		return "" // no size unit: not a size
	}
	b := v * budgetShare
	var out string
	switch {
	case b >= 10:
		out = strconv.FormatFloat(math.Floor(b), 'f', 0, 64)
	case b >= 0.1:
		out = strings.TrimSuffix(strconv.FormatFloat(math.Floor(b*10)/10, 'f', 1, 64), ".0")
	default:
		return ""
	}
	return out + " " + unit
}
