package dsn

// textBlock is what the free-text scanners read about one recipient.
type textBlock struct {
	address    string
	diagnostic string
	remoteMTA  string
	command    string
	status     string
}

// scanRecipientBlocks finds recipient blocks in free text.
func scanRecipientBlocks(text, lowerText []byte) []textBlock {
	return nil
}

// readFreeText reads a report that has no RFC 3464 part. It says whether the
// message was recognised as a report.
func (p *parser) readFreeText() bool {
	return false
}
