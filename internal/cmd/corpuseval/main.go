// Command corpuseval measures how the built-in rules generalize, on the
// labelled corpus in ../shared/corpus (read where it lies, never copied).
//
// It parses every corpus message with dsn.Parse and reads it with the rules
// engine in process, then reports:
//
//   - for every rule, the corpus records it decides, per family (a family is
//     the file name without "-NN.eml": lhost-postfix, rhost-google, rfc3464...),
//     flagging the rules that decide exactly one record and those whose
//     records all come from one family;
//   - the "unless" phrases of rules.yaml that occur in exactly one corpus
//     file (an exception written for one sample);
//   - leave-family-out scores: for each family F, the rules whose decisions
//     all fall in F are left out (rules.LoadWithout) and F is read again; the
//     agreement of reason and status with truth.jsonl, per family and over
//     all records, estimates how the rules read bounces they were not
//     written for. The whole-corpus score with every rule is printed beside;
//   - leave-file-out scores: each file read without the rules whose
//     decisions all fall in that one file.
//
// Usage, from the project root:
//
//	go run ./internal/cmd/corpuseval [-shared ../shared] [-rules rules/rules.yaml] [-all] [-families] [-phrases] [-keep REGEXP]
//
// -keep names rules never left out: a rule written from a vendor's or the
// registry's table decides only that vendor's bounces by design, and leaving
// it out measures the table's absence rather than overfitting.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// truthRecord is one line of truth.jsonl (see ../shared/tools/corpus-score).
type truthRecord struct {
	File       string `json:"file"`
	Index      int    `json:"index"`
	Recipient  string `json:"recipient"`
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	HardBounce bool   `json:"hard_bounce"`
	NotBounce  bool   `json:"not_a_bounce"`
}

// record is one reading of a corpus message.
type record struct {
	recipient  string
	status     string
	reason     string
	hard       bool
	rule       string
	diagnostic string
}

// score counts, over a set of truth records, how many agree with the readings.
type score struct {
	n, recipient, status, reason, hard int
}

func (s *score) add(o score) {
	s.n += o.n
	s.recipient += o.recipient
	s.status += o.status
	s.reason += o.reason
	s.hard += o.hard
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

var numbered = regexp.MustCompile(`-[0-9]+\.eml$`)

// family returns the family of a corpus file name: "lhost-postfix-07.eml"
// gives "lhost-postfix".
func family(file string) string {
	return strings.TrimSuffix(numbered.ReplaceAllString(file, ""), ".eml")
}

func main() {
	shared := flag.String("shared", "../shared", "the shared folder holding corpus/sisimai")
	rulesSrc := flag.String("rules", "rules/rules.yaml", "the built-in rules file, read for its unless phrases")
	all := flag.Bool("all", false, "list every rule, not only the flagged ones")
	perFamily := flag.Bool("families", false, "print the score of every family")
	phrases := flag.Bool("phrases", false, "list the text phrases found in one corpus file only and in no reference table")
	misses := flag.Bool("misses", false, "list every record whose reason is wrong with its family left out: file, truth, reading, deciding rule and diagnostic")
	keep := flag.String("keep", "", "a regexp of rule ids never left out (e.g. the vendor and registry tables, whose rules are written from sources, not from a family's samples)")
	flag.Parse()
	var keepRE *regexp.Regexp
	if *keep != "" {
		var err error
		if keepRE, err = regexp.Compile(*keep); err != nil {
			fmt.Fprintf(os.Stderr, "corpuseval: -keep: %v\n", err)
			os.Exit(2)
		}
	}
	if err := run(os.Stdout, *shared, *rulesSrc, *all, *perFamily, *phrases, *misses, keepRE); err != nil {
		fmt.Fprintf(os.Stderr, "corpuseval: %v\n", err)
		os.Exit(2)
	}
}

type corpus struct {
	dir   string
	truth map[string][]truthRecord // by file
	files []string                 // bounce files (truth records that are not not_a_bounce), sorted
	raw   map[string][]byte
}

func loadCorpus(shared string) (*corpus, error) {
	dir := filepath.Join(shared, "corpus", "sisimai")
	f, err := os.Open(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &corpus{dir: dir, truth: map[string][]truthRecord{}, raw: map[string][]byte{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var t truthRecord
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			return nil, fmt.Errorf("truth.jsonl: %v in %q", err, line)
		}
		if t.NotBounce {
			continue
		}
		if _, seen := c.truth[t.File]; !seen {
			c.files = append(c.files, t.File)
		}
		c.truth[t.File] = append(c.truth[t.File], t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(c.files)
	for _, name := range c.files {
		raw, err := os.ReadFile(filepath.Join(dir, "eml", name))
		if err != nil {
			return nil, err
		}
		c.raw[name] = raw
	}
	return c, nil
}

// read returns the readings of the given files with engine e, of every kind
// (auto-replies and feedback reports are labelled too).
func (c *corpus) read(e *rules.Engine, files []string) map[string][]record {
	out := make(map[string][]record, len(files))
	for _, name := range files {
		rep, _ := dsn.Parse(c.raw[name]) // a best-effort report is read like the CLI does
		if rep == nil {
			continue
		}
		for _, rd := range e.Explain(rep) {
			out[name] = append(out[name], record{
				recipient: strings.ToLower(rd.Recipient.Address), status: rd.Status, reason: string(rd.Reason),
				hard: rd.HardBounce, rule: rd.Rule, diagnostic: rd.Recipient.Diagnostic,
			})
		}
	}
	return out
}

// scoreFile compares the readings of one file with its truth records, the
// way corpus-score does: the first reading with the same recipient.
func (c *corpus) scoreFile(name string, got []record) score {
	var s score
	for _, t := range c.truth[name] {
		s.n++
		want := strings.ToLower(t.Recipient)
		for _, r := range got {
			if r.recipient != want {
				continue
			}
			s.recipient++
			if r.status == t.Status {
				s.status++
			}
			if r.reason == t.Reason {
				s.reason++
			}
			if r.hard == t.HardBounce {
				s.hard++
			}
			break
		}
	}
	return s
}

func run(w io.Writer, shared, rulesSrc string, all, perFamily, phrases, misses bool, keep *regexp.Regexp) error {
	c, err := loadCorpus(shared)
	if err != nil {
		return err
	}
	full, err := rules.Load()
	if err != nil {
		return err
	}
	readings := c.read(full, c.files)

	// Which records each rule decides, and in which families.
	type decision struct {
		records  int
		families map[string]int
	}
	decides := map[string]*decision{}
	famFiles := map[string][]string{}
	for _, name := range c.files {
		fam := family(name)
		famFiles[fam] = append(famFiles[fam], name)
		for _, r := range readings[name] {
			if r.rule == "" {
				continue
			}
			d := decides[r.rule]
			if d == nil {
				d = &decision{families: map[string]int{}}
				decides[r.rule] = d
			}
			d.records++
			d.families[fam]++
		}
	}
	ids := full.RuleIDs()
	var one, oneFamily, none int
	fmt.Fprintln(w, "# Rules: corpus records decided, per family (ONE: a single record; FAMILY: a single family)")
	for _, id := range ids {
		d := decides[id]
		if d == nil {
			none++
			if all {
				fmt.Fprintf(w, "%-44s %4d\n", id, 0)
			}
			continue
		}
		var flags []string
		if d.records == 1 {
			flags = append(flags, "ONE")
			one++
		}
		if len(d.families) == 1 {
			flags = append(flags, "FAMILY")
			oneFamily++
		}
		if !all && len(flags) == 0 {
			continue
		}
		fams := make([]string, 0, len(d.families))
		for f, n := range d.families {
			fams = append(fams, fmt.Sprintf("%s:%d", f, n))
		}
		sort.Strings(fams)
		fmt.Fprintf(w, "%-44s %4d  %-12s %s\n", id, d.records, strings.Join(flags, ","), strings.Join(fams, " "))
	}
	fmt.Fprintf(w, "rules: %d; decide no corpus record: %d; exactly one record: %d; records of one family only: %d\n\n",
		len(ids), none, one, oneFamily)

	if err := reportUnless(w, rulesSrc, c, readings); err != nil {
		return err
	}
	if phrases {
		if err := reportPhrases(w, shared, rulesSrc, c, readings); err != nil {
			return err
		}
	}

	// Leave-family-out.
	fams := make([]string, 0, len(famFiles))
	for f := range famFiles {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var totalFull, totalOut score
	var macroFull, macroOut float64
	var missed []string // with -misses: the records read wrong with their family left out
	fmt.Fprintln(w, "# Leave-family-out: each family read without the rules that decide only its records")
	if perFamily {
		fmt.Fprintf(w, "%-28s %4s %5s  %-15s %-15s\n", "family", "recs", "own", "all rules r/s", "left out r/s")
	}
	for _, fam := range fams {
		var own []string
		for id, d := range decides {
			if len(d.families) == 1 && d.families[fam] > 0 && (keep == nil || !keep.MatchString(id)) {
				own = append(own, id)
			}
		}
		sort.Strings(own)
		var sFull, sOut score
		for _, name := range famFiles[fam] {
			sFull.add(c.scoreFile(name, readings[name]))
		}
		sOut = sFull
		out := readings
		if len(own) > 0 {
			e, err := rules.LoadWithout(own)
			if err != nil {
				return err
			}
			out = c.read(e, famFiles[fam])
			sOut = score{}
			for _, name := range famFiles[fam] {
				sOut.add(c.scoreFile(name, out[name]))
			}
		}
		if misses {
			for _, name := range famFiles[fam] {
				missed = append(missed, c.reasonMisses(name, out[name])...)
			}
		}
		totalFull.add(sFull)
		totalOut.add(sOut)
		macroFull += pct(sFull.reason, sFull.n)
		macroOut += pct(sOut.reason, sOut.n)
		if perFamily {
			fmt.Fprintf(w, "%-28s %4d %5d  %5.1f / %5.1f   %5.1f / %5.1f  %s\n", fam, sFull.n, len(own),
				pct(sFull.reason, sFull.n), pct(sFull.status, sFull.n), pct(sOut.reason, sOut.n), pct(sOut.status, sOut.n),
				strings.Join(own, " "))
		}
	}
	if misses {
		fmt.Fprintln(w, "# Reason misses with the family left out: file#index truth -> reading (rule) diagnostic")
		for _, m := range missed {
			fmt.Fprintln(w, m)
		}
	}
	oneOut, err := leaveFileOut(c, readings, keep)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "all rules:     recipient %.1f status %.1f reason %.1f hard %.1f over %d records (reason, mean of %d families: %.1f)\n",
		pct(totalFull.recipient, totalFull.n), pct(totalFull.status, totalFull.n), pct(totalFull.reason, totalFull.n),
		pct(totalFull.hard, totalFull.n), totalFull.n, len(fams), macroFull/float64(len(fams)))
	fmt.Fprintf(w, "families out:  recipient %.1f status %.1f reason %.1f hard %.1f over %d records (reason, mean of %d families: %.1f)\n",
		pct(totalOut.recipient, totalOut.n), pct(totalOut.status, totalOut.n), pct(totalOut.reason, totalOut.n),
		pct(totalOut.hard, totalOut.n), totalOut.n, len(fams), macroOut/float64(len(fams)))
	if perFamily {
		fmt.Fprintln(w, "# Leave-file-out: files whose reason is lost without the rules that decide only them")
		for _, l := range oneOut.lost {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "files out:     recipient %.1f status %.1f reason %.1f hard %.1f over %d records (%d files read without the rules that decide only them)\n",
		pct(oneOut.s.recipient, oneOut.s.n), pct(oneOut.s.status, oneOut.s.n), pct(oneOut.s.reason, oneOut.s.n),
		pct(oneOut.s.hard, oneOut.s.n), oneOut.s.n, oneOut.files)
	return nil
}

// reasonMisses lists the truth records of one file whose reason the
// readings got wrong (or whose recipient they missed), one line each.
func (c *corpus) reasonMisses(name string, got []record) []string {
	var out []string
	for _, t := range c.truth[name] {
		want := strings.ToLower(t.Recipient)
		line := fmt.Sprintf("%s#%d %s -> (no reading of %s)", name, t.Index, t.Reason, want)
		for _, r := range got {
			if r.recipient != want {
				continue
			}
			if r.reason == t.Reason {
				line = ""
				break
			}
			diag := r.diagnostic
			if len(diag) > 160 {
				diag = diag[:160] + "..."
			}
			line = fmt.Sprintf("%s#%d %s -> %s (%s) status %s/%s %q", name, t.Index, t.Reason, r.reason, r.rule, t.Status, r.status, diag)
			break
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// fileOutScore is the leave-one-file-out score over the whole corpus.
type fileOutScore struct {
	s     score
	files int      // files that had rules of their own
	lost  []string // files whose reason is lost without their rules, and those rules
}

// leaveFileOut scores every corpus file read without the rules whose
// decisions all fall in that file (rules kept by keep excepted): a rule
// written from one sample helps no other bounce, so this estimates the
// reading of unseen bounces of the same families, between the whole-corpus
// score (every rule, including those) and leave-family-out (no rule of the
// family's own).
func leaveFileOut(c *corpus, readings map[string][]record, keep *regexp.Regexp) (fileOutScore, error) {
	onlyIn := map[string]string{} // rule id -> the one file it decides in, "" when several
	for _, name := range c.files {
		for _, r := range readings[name] {
			if r.rule == "" {
				continue
			}
			if f, seen := onlyIn[r.rule]; !seen {
				onlyIn[r.rule] = name
			} else if f != name {
				onlyIn[r.rule] = ""
			}
		}
	}
	own := map[string][]string{}
	for id, f := range onlyIn {
		if f != "" && (keep == nil || !keep.MatchString(id)) {
			own[f] = append(own[f], id)
		}
	}
	var out fileOutScore
	for _, name := range c.files {
		got := readings[name]
		if ids := own[name]; len(ids) > 0 {
			sort.Strings(ids)
			e, err := rules.LoadWithout(ids)
			if err != nil {
				return out, err
			}
			got = c.read(e, []string{name})[name]
			out.files++
			if a, b := c.scoreFile(name, readings[name]), c.scoreFile(name, got); b.reason < a.reason {
				out.lost = append(out.lost, fmt.Sprintf("%s without %s", name, strings.Join(ids, " ")))
			}
		}
		out.s.add(c.scoreFile(name, got))
	}
	return out, nil
}

// rulesFile is the part of a rules file that reportUnless reads.
type rulesFile struct {
	unlessAlias map[string]string // rule id -> anchor of its unless list
	Rules       []struct {
		ID   string `yaml:"id"`
		When struct {
			Text   []string `yaml:"text"`
			All    []string `yaml:"all"`
			Unless []string `yaml:"unless"`
		} `yaml:"when"`
	} `yaml:"rules"`
}

// corpusTexts returns, per corpus file, the folded diagnostic texts of its
// readings, one per line.
func corpusTexts(c *corpus, readings map[string][]record) map[string]string {
	texts := make(map[string]string, len(c.files))
	for _, name := range c.files {
		var b strings.Builder
		for _, r := range readings[name] {
			b.WriteString(fold(r.diagnostic))
			b.WriteByte('\n')
		}
		texts[name] = b.String()
	}
	return texts
}

func readRulesFile(path string) (*rulesFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f rulesFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f.unlessAlias = unlessAliases(&root)
	return &f, nil
}

// unlessAliases returns, by rule id, the anchor name of an unless list that
// is a named list (unless: &name [...] or unless: *name): such a list is a
// whole family's phrase list used as a veto, read as one exception, not
// phrase by phrase.
func unlessAliases(root *yaml.Node) map[string]string {
	out := map[string]string{}
	get := func(m *yaml.Node, key string) *yaml.Node {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	rules := get(root, "rules")
	if rules == nil {
		return out
	}
	for _, r := range rules.Content {
		id, when := get(r, "id"), get(r, "when")
		u := get(when, "unless")
		switch {
		case id == nil || u == nil:
		case u.Kind == yaml.AliasNode:
			out[id.Value] = u.Value
		case u.Anchor != "":
			out[id.Value] = u.Anchor
		}
	}
	return out
}

// reportPhrases lists the text and all phrases of the rules file that occur
// in exactly one corpus file and in no table of the reference
// (sisimai-phrases.json, any string of it, folded): the phrases that only a
// sample supports.
func reportPhrases(w io.Writer, shared, path string, c *corpus, readings map[string][]record) error {
	f, err := readRulesFile(path)
	if err != nil {
		return err
	}
	refData, err := os.ReadFile(filepath.Join(shared, "reference", "sisimai-phrases.json"))
	if err != nil {
		return err
	}
	var ref any
	if err := json.Unmarshal(refData, &ref); err != nil {
		return fmt.Errorf("sisimai-phrases.json: %v", err)
	}
	var refText strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			refText.WriteString(fold(v))
			refText.WriteByte('\n')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				refText.WriteString(fold(k))
				refText.WriteByte('\n')
				walk(x)
			}
		}
	}
	walk(ref)
	known := refText.String()
	texts := corpusTexts(c, readings)
	fmt.Fprintln(w, "# text phrases found in exactly one corpus file and in no reference table")
	var n int
	for _, r := range f.Rules {
		for _, p := range append(append([]string(nil), r.When.Text...), r.When.All...) {
			p = fold(p)
			if strings.Contains(known, p) {
				continue
			}
			var hits []string
			for _, name := range c.files {
				if strings.Contains(texts[name], p) {
					hits = append(hits, name)
				}
			}
			if len(hits) == 1 {
				n++
				fmt.Fprintf(w, "%-44s %q  (%s)\n", r.ID, p, hits[0])
			}
		}
	}
	fmt.Fprintf(w, "phrases in one corpus file only: %d\n\n", n)
	return nil
}

// reportUnless lists the unless phrases of the rules file that occur in the
// diagnostic text of exactly one corpus file, or of none.
func reportUnless(w io.Writer, path string, c *corpus, readings map[string][]record) error {
	f, err := readRulesFile(path)
	if err != nil {
		return err
	}
	texts := corpusTexts(c, readings)
	fmt.Fprintln(w, "# unless phrases found in exactly one corpus file (ONE) or in none (NONE); a whole list (*anchor) counts once")
	var total, one, zero int
	for _, r := range f.Rules {
		if anchor, ok := f.unlessAlias[r.ID]; ok {
			total++
			var hits []string
			for _, name := range c.files {
				for _, p := range r.When.Unless {
					if strings.Contains(texts[name], fold(p)) {
						hits = append(hits, name)
						break
					}
				}
			}
			switch len(hits) {
			case 0:
				zero++
				fmt.Fprintf(w, "%-44s NONE *%s\n", r.ID, anchor)
			case 1:
				one++
				fmt.Fprintf(w, "%-44s ONE  *%s  (%s)\n", r.ID, anchor, hits[0])
			}
			continue
		}
		for _, p := range r.When.Unless {
			total++
			p = fold(p)
			var hits []string
			for _, name := range c.files {
				if strings.Contains(texts[name], p) {
					hits = append(hits, name)
				}
			}
			switch len(hits) {
			case 0:
				zero++
				fmt.Fprintf(w, "%-44s NONE %q\n", r.ID, p)
			case 1:
				one++
				fmt.Fprintf(w, "%-44s ONE  %q  (%s)\n", r.ID, p, hits[0])
			}
		}
	}
	fmt.Fprintf(w, "unless entries: %d; in exactly one file: %d; in none: %d\n\n", total, one, zero)
	return nil
}

// fold lower-cases s and folds runs of white space into one space, as the
// rules engine compares phrases.
func fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}
