package rules

import "strings"

// Stage is the step of the SMTP conversation a refusal came at, as far as it
// changes what the refusal means for the person who reads it: a spam verdict
// on the connection is about the sending server's reputation, one after the
// message was sent is about its content; a policy refusal of the recipient
// is not fixed by editing the message.
type Stage string

// The stages. Commands map to them as RFC 5321 orders the conversation:
// greeting, EHLO/HELO, STARTTLS and AUTH (connection), MAIL FROM (sender),
// RCPT TO (recipient), DATA or BDAT and the end of data (content).
const (
	StageUnknown    Stage = ""           // the report does not say
	StageConnection Stage = "connection" // the connection, greeting, EHLO/HELO, STARTTLS, AUTH
	StageSender     Stage = "sender"     // MAIL FROM: the sender's address
	StageRecipient  Stage = "recipient"  // RCPT TO: the recipient's address
	StageContent    Stage = "content"    // DATA, BDAT: the message itself
)

// stageKeys are the keys of "stages:" in a rules file, in the order of the
// conversation; "unknown" is a record whose report does not name the stage.
var stageKeys = [...]string{"connection", "sender", "recipient", "content", "unknown"}

const numStages = len(stageKeys)

// StageOf returns the stage of an SMTP command as package dsn names it
// (CONN for the greeting).
func StageOf(command string) Stage {
	switch strings.ToUpper(command) {
	case "CONN", "EHLO", "HELO", "LHLO", "STARTTLS", "AUTH":
		return StageConnection
	case "MAIL":
		return StageSender
	case "RCPT":
		return StageRecipient
	case "DATA", "BDAT":
		return StageContent
	}
	return StageUnknown
}

// index returns the position of s's key in stageKeys.
func (s Stage) index() int {
	if s == StageUnknown {
		return numStages - 1
	}
	for i, k := range stageKeys {
		if k == string(s) {
			return i
		}
	}
	return numStages - 1
}

// stageKeyIndex returns the position of a "stages:" key in stageKeys.
func stageKeyIndex(key string) (int, bool) {
	for i, k := range stageKeys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}
