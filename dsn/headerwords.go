package dsn

// The word lists searched in header fields (headerContainsAny,
// headerHolds), each as a phraseSet: one pass over the field finds any of
// its words, where a search per word read the field once per word (issue
// 14: the Subject and From of every message are searched this way).
var (
	bounceSubjectSet           = newPhraseSet(bounceSubjects...)
	daemonSenderSet            = newPhraseSet(daemonSenders...)
	autoReplySubjectSet        = newPhraseSet(autoReplySubjects...)
	delaySubjectSet            = newPhraseSet(delaySubjects[:]...)
	listProbeSubjectSet        = newPhraseSet(listProbeSubjects...)
	quarantineDigestSubjectSet = newPhraseSet(quarantineDigestSubjects...)
	receiptSubjectSet          = newPhraseSet(receiptSubjects[:]...)
	listRobotSenderSet         = newPhraseSet(listRobotSenders[:]...)
	heldSubjectSet             = newPhraseSet(heldSubjects[:]...)
	fmlSubjectSet              = newPhraseSet(fmlSubjects[:]...)
	fmlServerSet               = newPhraseSet("fml")
	fmlMessageIDSet            = newPhraseSet(".fml")
	dmarcSubjectDomainSet      = newPhraseSet(dmarcSubjectDomain[:]...)
	dmarcSubjectSubmitterSet   = newPhraseSet(dmarcSubjectSubmitter[:]...)
	quotaWarningSubjectSet     = newPhraseSet(quotaWarningSubjects[:]...)
	quotaWarningTextSet        = newPhraseSet(quotaWarningTexts[:]...)
)
