package dsn

import "bytes"

// causeLabels are the lower-case labels of recipientLabels that state why
// the recipient failed, not only that it did: Ipswitch IMail writes its
// whole diagnostic as "Unknown user: user@example.org" (Sisimai
// lhost/via-imailserver.go reads "Unknown user" and "Unknown host" there;
// Mailman's SMTP32 detector reads the same lines), CompuServe "Receiver not
// found: jdoe". On such a line the label is the recipient's text.
var causeLabels = [...][]byte{
	[]byte("unknown user:"), []byte("user unknown:"), []byte("no such user:"),
	[]byte("unknown recipient:"), []byte("invalid recipient:"), []byte("unknown address:"),
	[]byte("invalid address:"), []byte("receiver not found:"), []byte("invalid receiver address:"),
}

// causeLabelled says whether a lower-case recipient line starts with a
// label that states the cause of the failure (see causeLabels).
func causeLabelled(lt []byte) bool {
	if len(lt) == 0 {
		return false
	}
	for _, lab := range causeLabels {
		if lt[0] == lab[0] && bytes.HasPrefix(lt, lab) {
			return true
		}
	}
	return false
}
