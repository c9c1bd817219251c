package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

// printResult prints the overall figures, then (if perFamily) one line per
// family, then at most maxMisses misses.
func printResult(w io.Writer, res result, perFamily bool, maxMisses int) {
	a := res.All
	fmt.Fprintln(w, "figure                                         result")
	fmt.Fprintf(w, "recipient / status / reason / hard             %s / %s / %s / %s\n",
		pct(a.Recipient), pct(a.Status), pct(a.Reason), pct(a.Hard))
	fmt.Fprintf(w, "  (counts)                                     recipient %s, status %s, status strict %s, reason %s, hard %s\n",
		a.Recipient, a.Status, a.StatusStrict, a.Reason, a.Hard)
	fmt.Fprintf(w, "failed recipient found                         %s\n", a.FailedFound)
	fmt.Fprintf(w, "bounce files recognised as bounce or delay     %s\n", a.Recognised)
	fmt.Fprintf(w, "non-bounces not called a bounce                %d/%d\n", a.NotCalledBounce.ok, a.NotCalledBounce.n)
	fmt.Fprintf(w, "non-bounces given the right kind               %d/%d\n", a.NonBounceKind.ok, a.NonBounceKind.n)
	fmt.Fprintf(w, "\"permanent\" agrees                             %s\n", a.Permanent)
	fmt.Fprintf(w, "kind agrees (failed recipients)                %s\n", a.Kind)
	fmt.Fprintf(w, "bounce files naming no wrong address           %s\n", a.WrongAddress)

	if perFamily {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "family\tfiles\trecords\trecipient\tstatus\treason\thard\tpermanent\trecognised\tno wrong addr\tnon-bounce ok")
		var names []string
		for name := range res.Families {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			f := res.Families[name]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, res.FamilyFiles[name], f.Recipient.n,
				frac(f.Recipient), frac(f.Status), frac(f.Reason), frac(f.Hard), frac(f.Permanent),
				frac(f.Recognised), frac(f.WrongAddress), frac(f.NotCalledBounce))
		}
		tw.Flush()
	}

	if maxMisses > 0 && len(res.Misses) > 0 {
		fmt.Fprintf(w, "\n%d misses:\n", len(res.Misses))
		for i, m := range res.Misses {
			if i == maxMisses {
				fmt.Fprintf(w, "... %d more\n", len(res.Misses)-maxMisses)
				break
			}
			fmt.Fprintln(w, "miss:", m)
		}
	}
}

// pct is a tally as a bare percentage, "-" when empty.
func pct(t tally) string {
	if t.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", t.percent())
}

// frac is a tally as "ok/n", "-" when empty.
func frac(t tally) string {
	if t.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", t.ok, t.n)
}
