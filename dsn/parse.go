package dsn

// Parse reads raw (an RFC 5322 message, LF or CRLF line ends) into a Report.
// It never panics; on input it cannot make sense of it returns a best-effort
// Report (often KindNone) and, for malformed input, an error saying what was
// expected and what came.
func Parse(raw []byte) (*Report, error) {
	// PLACEHOLDER: the dsn helper replaces this.
	return &Report{Kind: KindNone}, nil
}
