package dsn

import (
	"sync"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Whether the sending server has given up on a recipient or is still
// trying, when a report does not say it in an RFC 3464 Action field. The
// text says it: a warning ("will keep trying", "has not yet been
// delivered", "This is a warning only") is a delay, whatever its codes;
// a notice that says the server gave up ("I've given up", "retry timeout
// exceeded", "this message has been in the queue too long") is a failure,
// even when the last reply was of class 4. Without either, a report is a
// failure: reports are sent when something failed.

// gaveUpPhrases are lower-case phrases by which a report says the sending
// server will not try again. They win over stillTryingPhrases: a failure
// may say what it did before ("Delivery attempts will continue" is not in
// one, "I've given up" is never in a warning).
var gaveUpPhrases = newPhraseList([]string{
	"i've given up", "i have given up", "gave up", "given up on", "giving up on",
	"retry timeout exceeded", "not going to try again", "in the queue too long", "too long in the queue",
	"will not be retried", "won't be retried", "will not try again", "will not be attempted",
	"not be attempted again", "will not retry", "no further attempts", "no more attempts",
	"will not try to redeliver", "will not attempt", "this is a permanent error", "permanent fatal error",
	"failed permanently", "delivery time expired", "message expired", "has expired",
	"have been failing for a long time", "could not be delivered within",
	"message has been removed from the mail queue", "has been removed from the mail queue",
	"has stopped trying", "stopped trying to deliver",
})

// stillTryingPhrases are lower-case phrases by which a report says the
// sending server is still trying: a delay warning (Exim's "has not yet
// been delivered ... Delivery attempts will continue", Postfix's "THIS IS
// A WARNING ONLY", Sendmail's "Will keep trying", Exchange's "Delivery to
// the following recipients has been delayed", Mailman's warning patterns).
var stillTryingPhrases = newPhraseList([]string{
	"will keep trying", "will continue to try", "will continue trying", "will try again",
	"will be retried", "will retry", "still trying", "still being retried", "will be tried again",
	"delivery attempts will continue", "will attempt to deliver", "will try to deliver",
	"will automatically try", "attempts will continue", "will continue attempting",
	"has not yet been delivered", "have not yet been delivered", "not yet been delivered",
	"this is a warning", "warning only", "warning message only", "do not need to resend",
	"no action is required", "delivery has been delayed", "delivery is delayed",
	"has been delayed", "delivery delayed", "message delayed", "delayed delivery",
	"has been postponed", "delivery postponed", "delivery is postponed", "delivery deferred",
	"has been deferred", "is queued for retry", "queued for later delivery", "message is delayed",
})

// deliveredPhrases are lower-case phrases of success notices sent as
// text (Exchange's "Delivery to the following recipients was successful",
// "Your message has been successfully relayed to the following
// recipients"): the recipients they list did not fail.
var deliveredPhrases = newPhraseList([]string{
	"delivery to the following recipients was successful", "delivery to these recipients or groups is complete",
	"your message has been delivered", "was successfully delivered", "has been successfully delivered",
	"successfully relayed", "delivered to the following recipients",
})

// undeliveredPhrases are lower-case phrases that, beside one of
// deliveredPhrases, make a notice about failures after all ("was
// successfully delivered to a, but could not be delivered to b"; PMDF's and
// Oracle Messaging Server's "Your message cannot be delivered to the
// following recipients", whose end reads as a success).
var undeliveredPhrases = newPhraseList([]string{
	"not be delivered", "not delivered", "undeliverable", "failed", "unable to deliver", "could not deliver",
	"rejected", "user unknown", "does not exist", "cannot be delivered", "can not be delivered", "cannot deliver",
})

// relayedPhrase tells a relay notice among deliveredPhrases.
var relayedPhrase = newPhraseList([]string{"relayed"})

// retryState says what a report's notice (see noticeWords) says of the
// sending server: gave up (ActionFailed), still trying (ActionDelayed),
// done (ActionDelivered, ActionRelayed: a success notice sent as text), or
// nothing ("").
func retryState(words []byte) smtpcode.Action {
	// The five lists are searched in one pass (retryPhrases), which stops
	// as soon as the notice has given up.
	found := retryPhrases().lists(words, retryGaveUp)
	switch {
	case found&retryGaveUp != 0:
		return smtpcode.ActionFailed
	case found&retryStillTrying != 0:
		return smtpcode.ActionDelayed
	case found&retryDelivered != 0 && found&retryUndelivered == 0:
		if found&retryRelayed != 0 {
			return smtpcode.ActionRelayed
		}
		return smtpcode.ActionDelivered
	}
	return ""
}

// The lists of retryPhrases, as bits.
const (
	retryGaveUp uint8 = 1 << iota
	retryStillTrying
	retryDelivered
	retryUndelivered
	retryRelayed
)

// retryPhrases holds the phrases of gaveUpPhrases, stillTryingPhrases,
// deliveredPhrases, undeliveredPhrases and relayedPhrase, each tagged with
// its list. It is built on first use: the union of the lists was a third
// of the package's allocations at start, for commands that read no notice
// (issue 14: start-up).
var retryPhrases = sync.OnceValue(func() *taggedPhraseList {
	return newTaggedPhraseList(map[uint8]*phraseList{
		retryGaveUp:      gaveUpPhrases,
		retryStillTrying: stillTryingPhrases,
		retryDelivered:   deliveredPhrases,
		retryUndelivered: undeliveredPhrases,
		retryRelayed:     relayedPhrase,
	})
})

// delaySubjects are lower-case subject words of delay warnings.
var delaySubjects = [...]string{"delayed", "delay)", "warning: message", "still being retried", "will retry", "not yet been delivered", "delivery delay", "warning: could not send"}

// fallbackAction is the action of recipients whose report does not give
// one: what the notice says (retryState), else delayed when the subject
// says so, else failed.
func (p *parser) fallbackAction() smtpcode.Action {
	p.loadText()
	if a := retryState(p.noticeWords()); a != "" {
		return a
	}
	if headerContainsAny(p.hdr, "Subject", delaySubjectSet) {
		return smtpcode.ActionDelayed
	}
	return smtpcode.ActionFailed
}
