package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// pseudoStatus matches Sisimai's pseudo status codes (X.0.9YY), which
// ndrmilter fills in when the message gives no precise code.
var pseudoStatus = regexp.MustCompile(`^[245]\.0\.9[0-9][0-9]$`)

// tally counts how many of n cases passed.
type tally struct{ ok, n int }

func (t *tally) add(pass bool) {
	t.n++
	if pass {
		t.ok++
	}
}

// String is "93.1 % (122/131)", or "-" when there was nothing to count.
func (t tally) String() string {
	if t.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %% (%d/%d)", t.percent(), t.ok, t.n)
}

func (t tally) percent() float64 {
	if t.n == 0 {
		return 0
	}
	return 100 * float64(t.ok) / float64(t.n)
}

// figures are the issue 8 table's figures for one set of truth records.
//
// Record figures count the truth records of failed recipients (not the
// non-bounce lines): Recipient is "a record naming the same recipient
// (case-insensitive) was printed", the others need that record and compare one
// field. Status accepts an inferred code where the truth allows it
// (status_inferred_ok); StatusStrict does not, as corpus-score.
type figures struct {
	Recipient, Status, StatusStrict, Reason, Hard tally
	// Permanent and Kind compare the matched record with the truth's
	// "permanent" and "kind", where the truth gives them.
	Permanent, Kind tally
	// FailedFound counts truth records with a non-empty recipient for which a
	// bounce or delay record names that recipient.
	FailedFound tally
	// Recognised counts files with a failed recipient in the truth for which
	// at least one bounce or delay record was printed.
	Recognised tally
	// NotCalledBounce counts non-bounce files for which no bounce, delay or
	// delivered record was printed; NonBounceKind those whose printed kind
	// equals the truth's kind.
	NotCalledBounce, NonBounceKind tally
	// WrongAddress counts files with a failed recipient in the truth whose
	// bounce or delay records name only addresses the truth names (or none):
	// it falls when the parser reports a help-text address, the list, the
	// sender or a Received "for" address.
	WrongAddress tally
}

// result is the outcome of scoring: the figures overall and per family, and
// one line per miss.
type result struct {
	All      figures
	Families map[string]*figures
	// FamilyFiles counts the files of each family.
	FamilyFiles map[string]int
	Misses      []string
}

// score compares explain's records with the truth. Truth records of one file
// are matched in index order, each to the first unused printed record with the
// same recipient, so that a file naming the same recipient twice needs two
// records.
func score(truth []truthRecord, got map[string][]explainRecord) result {
	res := result{Families: make(map[string]*figures), FamilyFiles: make(map[string]int)}
	byFile := make(map[string][]truthRecord)
	var files []string
	for _, t := range truth {
		if _, seen := byFile[t.File]; !seen {
			files = append(files, t.File)
		}
		byFile[t.File] = append(byFile[t.File], t)
	}
	sort.Strings(files)
	for _, file := range files {
		recs := byFile[file]
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].Index < recs[j].Index })
		fam := recs[0].family()
		res.FamilyFiles[fam]++
		ff := res.Families[fam]
		if ff == nil {
			ff = &figures{}
			res.Families[fam] = ff
		}
		scoreFile(file, recs, got[file], []*figures{&res.All, ff}, &res.Misses)
	}
	return res
}

// scoreFile scores the truth records of one file against its printed records,
// adding to every figures in into.
func scoreFile(file string, truth []truthRecord, printed []explainRecord, into []*figures, misses *[]string) {
	each := func(f func(*figures)) {
		for _, fg := range into {
			f(fg)
		}
	}
	miss := func(format string, args ...any) {
		*misses = append(*misses, file+": "+fmt.Sprintf(format, args...))
	}

	if truth[0].NotABounce {
		called := false
		var kinds []string
		for _, p := range printed {
			kinds = append(kinds, string(p.Kind))
			if calledBounce(truth[0].Kind, p.Kind) {
				called = true
			}
		}
		each(func(f *figures) { f.NotCalledBounce.add(!called) })
		if called {
			miss("not a bounce (%s), but printed kinds %v", truth[0].Kind, kinds)
		}
		if truth[0].Kind != "" {
			same := len(printed) > 0
			for _, p := range printed {
				same = same && p.Kind == truth[0].Kind
			}
			each(func(f *figures) { f.NonBounceKind.add(same) })
			if !same && !called {
				miss("kind %v, want %s", kinds, truth[0].Kind)
			}
		}
		return
	}

	recognised := false
	for _, p := range printed {
		if failureKind(p.Kind) {
			recognised = true
		}
	}
	each(func(f *figures) { f.Recognised.add(recognised) })
	if !recognised {
		var kinds []string
		for _, p := range printed {
			kinds = append(kinds, string(p.Kind))
		}
		miss("a bounce, but printed kinds %v", kinds)
	}

	named := make(map[string]bool)
	for _, t := range truth {
		named[strings.ToLower(t.Recipient)] = true
	}
	var wrong []string
	for _, p := range printed {
		if failureKind(p.Kind) && p.Recipient != "" && !named[strings.ToLower(p.Recipient)] {
			wrong = append(wrong, p.Recipient)
		}
	}
	each(func(f *figures) { f.WrongAddress.add(len(wrong) == 0) })
	if len(wrong) > 0 {
		miss("reported addresses the notice does not name as failed: %v", wrong)
	}

	used := make([]bool, len(printed))
	for _, t := range truth {
		want := strings.ToLower(t.Recipient)
		at := -1
		for i, p := range printed {
			if !used[i] && strings.ToLower(p.Recipient) == want {
				at = i
				break
			}
		}
		if t.Recipient != "" {
			found := false
			for _, p := range printed {
				if failureKind(p.Kind) && strings.ToLower(p.Recipient) == want {
					found = true
				}
			}
			each(func(f *figures) { f.FailedFound.add(found) })
		}
		if at < 0 {
			var names []string
			for _, p := range printed {
				names = append(names, fmt.Sprintf("%q", p.Recipient))
			}
			each(func(f *figures) {
				f.Recipient.add(false)
				f.Status.add(false)
				f.StatusStrict.add(false)
				f.Reason.add(false)
				f.Hard.add(false)
				if t.Permanent != nil {
					f.Permanent.add(false)
				}
				if t.Kind != "" {
					f.Kind.add(false)
				}
			})
			miss("#%d recipient %q not found (printed %s)", t.Index, t.Recipient, strings.Join(names, ", "))
			continue
		}
		used[at] = true
		p := printed[at]
		statusOK := statusAccepted(t, p)
		each(func(f *figures) {
			f.Recipient.add(true)
			f.Status.add(statusOK)
			f.StatusStrict.add(p.Status == t.Status)
			f.Reason.add(p.Reason == t.Reason)
			f.Hard.add(p.HardBounce == t.HardBounce)
			if t.Permanent != nil {
				f.Permanent.add(p.Permanent == *t.Permanent)
			}
			if t.Kind != "" {
				f.Kind.add(p.Kind == t.Kind)
			}
		})
		if !statusOK {
			miss("#%d %s: status %q, want %q", t.Index, t.Recipient, p.Status, t.Status)
		}
		if p.Reason != t.Reason {
			miss("#%d %s: reason %q, want %q", t.Index, t.Recipient, p.Reason, t.Reason)
		}
		if p.HardBounce != t.HardBounce {
			miss("#%d %s: hard_bounce %v, want %v", t.Index, t.Recipient, p.HardBounce, t.HardBounce)
		}
		if t.Permanent != nil && p.Permanent != *t.Permanent {
			miss("#%d %s: permanent %v, want %v", t.Index, t.Recipient, p.Permanent, *t.Permanent)
		}
		if t.Kind != "" && p.Kind != t.Kind {
			miss("#%d %s: kind %q, want %q", t.Index, t.Recipient, p.Kind, t.Kind)
		}
	}
}

// statusAccepted reports whether the printed status is right: equal to the
// truth, or, where the truth allows an inferred code, a pseudo-code or a code
// explain marks as inferred.
func statusAccepted(t truthRecord, p explainRecord) bool {
	if p.Status == t.Status {
		return true
	}
	if !t.StatusInferredOK {
		return false
	}
	return pseudoStatus.MatchString(p.Status) || p.StatusSource == "inferred"
}
