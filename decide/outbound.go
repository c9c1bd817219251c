package decide

// Outbound decides what happens to an outbound message (one the front end
// records in the ledger): it goes on unchanged, but for the X-NDR-* fields
// it carries (f.Incoming) when one of its recipients (f.Recipients) is ours.
// ndrmilter writes those fields on inbound reports only, so one on mail to
// our own users, from one of them or from an internal host, is forged and
// would be read as ndrmilter's own. Mail only to other domains keeps them:
// it is not ours to change, and a server there strips them itself. It does
// no I/O.
func Outbound(s Site, f Facts) Outcome {
	out := Outcome{Action: ActionNone}
	ours := false
	for _, r := range f.Recipients {
		if s.Ours(r) {
			ours = true
			break
		}
	}
	if !ours {
		return out
	}
	for i := len(f.Incoming) - 1; i >= 0; i-- {
		out.Delete = append(out.Delete, Header{Name: f.Incoming[i].Name, Index: f.Incoming[i].Index})
	}
	return out
}
