package dsn

import "strings"

// Time stamps in quoted sessions. MDaemon's session transcript, as its
// failure notices quote it, starts every line with the time ("Mon
// 2025-11-03 09:12:39.539: <-- 550 5.1.1 ..."), and other transcripts and
// logs put the time in brackets ("[2025-11-03 09:12:39] <<< 550 ..."). A
// diagnostic made one line, or a reply cut at the next session mark, then
// carries the next line's time after the reply: "550 5.1.1 ... table Mon
// 2025-11-03 09:12:39.539:". That time belongs to the transcript, not to
// the server's reply, and trailingStamp cuts it off.

// trailingStamp returns seg without a time stamp at its end: an optional
// weekday, a date (2025-11-03, 11/03/2025, 03.11.2025) and a clock
// (09:12:39, 09:12:39.539, 9:12:39 AM), or one ISO 8601 date-time
// (2025-11-03T09:12:39Z), alone or in square brackets, and an optional
// colon after them. seg is returned as it is when it ends with no such
// stamp or is nothing else.
func trailingStamp(seg string) string {
	s := strings.TrimRight(seg, lineSpace+"\n")
	s = strings.TrimSuffix(s, ":")
	bracket := strings.HasSuffix(s, "]")
	if bracket {
		s = s[:len(s)-1]
	}
	end := len(s)
	// The fields from the end: [AM|PM] clock date [weekday], or one
	// date-time. first is the leftmost field taken, which opens the
	// brackets when there are.
	var first string
	field := func() string {
		i := strings.LastIndexAny(s[:end], lineSpace+"\n")
		f := s[i+1 : end]
		end = i + 1
		for end > 0 && isLineSpace(s[end-1]) {
			end--
		}
		first = f
		return strings.TrimPrefix(f, "[")
	}
	if f := field(); !isISOStamp(f) {
		if f == "AM" || f == "PM" || f == "am" || f == "pm" {
			f = field()
		}
		if !isClock(f) || strings.HasPrefix(first, "[") || !isDate(field()) {
			return seg
		}
		if end > 0 && !strings.HasPrefix(first, "[") {
			saveEnd, saveFirst := end, first
			if !isWeekday(strings.TrimSuffix(field(), ",")) {
				end, first = saveEnd, saveFirst
			}
		}
	}
	if bracket != strings.HasPrefix(first, "[") {
		return seg
	}
	rest := strings.TrimRight(s[:end], lineSpace+"\n")
	if rest == "" {
		return seg
	}
	return rest
}

// isClock says whether f is a time of day: H:MM, HH:MM:SS, with a
// fraction of a second after a dot or a comma.
func isClock(f string) bool {
	h, m, ok := strings.Cut(f, ":")
	if !ok || len(h) < 1 || len(h) > 2 || !allDigits(h) || len(m) < 2 || !allDigits(m[:2]) {
		return false
	}
	m = m[2:]
	if m == "" {
		return true
	}
	if m[0] != ':' || len(m) < 3 || !allDigits(m[1:3]) {
		return false
	}
	m = m[3:]
	return m == "" || (m[0] == '.' || m[0] == ',') && len(m) > 1 && len(m) <= 7 && allDigits(m[1:])
}

// isDate says whether f is a date: YYYY-MM-DD, or day, month and year
// (in either order) separated by slashes or dots.
func isDate(f string) bool {
	if len(f) == 10 && f[4] == '-' && f[7] == '-' {
		return allDigits(f[:4]) && allDigits(f[5:7]) && allDigits(f[8:])
	}
	for _, sep := range [...]string{"/", "."} {
		p := strings.Split(f, sep)
		if len(p) == 3 && len(p[0]) >= 1 && len(p[0]) <= 2 && len(p[1]) >= 1 && len(p[1]) <= 2 &&
			(len(p[2]) == 2 || len(p[2]) == 4) && allDigits(p[0]) && allDigits(p[1]) && allDigits(p[2]) {
			return true
		}
	}
	return false
}

// isISOStamp says whether f is an ISO 8601 date-time, "2025-11-03T09:12:39",
// with an optional fraction and zone ("Z", "+01:00").
func isISOStamp(f string) bool {
	d, t, ok := strings.Cut(f, "T")
	if !ok || !isDate(d) || len(d) != 10 {
		return false
	}
	t = strings.TrimSuffix(t, "Z")
	if i := strings.LastIndexAny(t, "+-"); i > 0 {
		t = t[:i]
	}
	return isClock(t)
}

// isWeekday says whether f is an English weekday's abbreviation.
func isWeekday(f string) bool {
	switch f {
	case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
		return true
	}
	return false
}

// allDigits says whether s is made of ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
