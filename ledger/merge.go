package ledger

// merge returns old with r merged into it, as the Ledger documentation
// says (one record per message), and whether old changed. Both are in the
// form Record.Normalize gives; old may be the zero Record (nothing stored).
// It is the one merge both stores run, inside their atomic update.
func merge(old, r Record) (Record, bool) {
	out := old
	changed := false
	fill := func(have *string, v string) {
		if *have == "" && v != "" {
			*have, changed = v, true
		}
	}
	fill(&out.MessageID, r.MessageID)
	fill(&out.QueueID, r.QueueID)
	fill(&out.Sender, r.Sender)
	if r.Time.After(out.Time) {
		out.Time, changed = r.Time, true
	}

	// The union of the recipients, old ones first and never dropped, new
	// ones while the record has room. Duplicates (from data written before
	// records were merged) are removed.
	seen := make(map[string]bool, len(old.Recipients)+len(r.Recipients))
	rcpts := make([]string, 0, min(len(old.Recipients)+len(r.Recipients), max(len(old.Recipients), MaxRecipients)))
	for _, a := range old.Recipients {
		if !seen[a] {
			seen[a] = true
			rcpts = append(rcpts, a)
		}
	}
	if len(rcpts) != len(old.Recipients) {
		changed = true
	}
	for _, a := range r.Recipients {
		if len(rcpts) >= MaxRecipients {
			break
		}
		if a != "" && !seen[a] {
			seen[a] = true
			rcpts = append(rcpts, a)
			changed = true
		}
	}
	out.Recipients = rcpts
	return out, changed
}

// mergeChanges returns the Change of a Merge that made the changes a and b
// in turn: a record added stays added, a merge counts over no change.
func mergeChanges(a, b Change) Change {
	switch {
	case a == ChangeAdded || b == ChangeAdded:
		return ChangeAdded
	case a == ChangeMerged || b == ChangeMerged:
		return ChangeMerged
	}
	return max(a, b)
}
