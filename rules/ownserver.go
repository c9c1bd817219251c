package rules

// ownServerRefusal says whether the refusal of a record may have come from
// the sender's own server, the one that wrote the report: no remote server
// is named, neither as Remote-MTA (RFC 3464 section 2.3.5) nor in the
// diagnostic's words ("host X said", "Remote server returned", "remote
// host said"). A relay refusal ("Relay access denied", RFC 5321 section
// 3.6.2 and 7.1) from the recipient's server is that server's
// configuration for the recipient's domain; only from the sender's own
// server can it mean that the sender may not send through it (Postfix
// reject_unauth_destination and smtpd_relay_restrictions; Exchange
// 5.7.54 and 5.7.64). A pasted reply (Lookup) names no server either: its
// origin is unknown, and both readings stay.
func ownServerRefusal(in *Input) bool {
	if in.RemoteMTA != "" {
		return false
	}
	for _, w := range remoteServerWords {
		if containsFold(in.Diagnostic, w) {
			return false
		}
	}
	return true
}

// remoteServerWords are the words of a diagnostic that say another server
// replied: Postfix's "host X[ip] said:", qmail-remote's "Remote host said:",
// Exchange's "Remote server returned", Exim's "SMTP error from remote mail
// server".
var remoteServerWords = [...]string{" said:", "remote host", "remote server", "remote mail server"}
