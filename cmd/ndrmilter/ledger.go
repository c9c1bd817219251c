package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

const ledgerUsage = `usage:
  ndrmilter ledger import [flags] FILE...    record the mail Postfix logs show leaving (plain or .gz; "-" is stdin)
  ndrmilter ledger lookup [flags] ID         what the ledger knows of a Message-ID (or a queue id)
  ndrmilter ledger stats [flags]             how many records, oldest and newest
flags (all subcommands; the defaults are serve's):
  --data DIR      data directory of the embedded (bbolt) ledger (default /var/lib/ndrmilter)
  --ledger SPEC   bolt:PATH, redis://HOST:PORT/DB or rediss://... (default: bbolt in --data)
  --config FILE   serve's configuration file: its data, ledger, domains and retention
  --json          machine-readable output
import only:
  --domain D      import only mail whose envelope sender is in domain D (repeatable; default: the
                  config's domains, else all)
  --dry-run       read and report, write nothing
A message's record keeps its first 1000 recipients; the others are kept as
sender/recipient pairs, and the summary says how many.
`

// runLedger is "ndrmilter ledger import|lookup|stats".
func runLedger(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, ledgerUsage)
		return 2
	}
	switch args[0] {
	case "import":
		return runLedgerImport(args[1:])
	case "lookup":
		return runLedgerLookup(args[1:])
	case "stats":
		return runLedgerStats(args[1:])
	case "-h", "--help", "help":
		fmt.Print(ledgerUsage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "ndrmilter ledger: unknown subcommand %q\n%s", args[0], ledgerUsage)
	return 2
}

// ledgerFlags are the flags every ledger subcommand takes.
type ledgerFlags struct {
	fs      *flag.FlagSet
	data    string
	spec    string
	config  string
	asJSON  bool
	domains stringList
}

func newLedgerFlags(name string) *ledgerFlags {
	lf := &ledgerFlags{fs: flag.NewFlagSet("ledger "+name, flag.ContinueOnError)}
	lf.fs.StringVar(&lf.data, "data", "", "data `DIR` of the embedded ledger (default /var/lib/ndrmilter)")
	lf.fs.StringVar(&lf.spec, "ledger", "", "ledger `SPEC`: bolt:PATH, redis://... (default: bbolt in --data)")
	lf.fs.StringVar(&lf.config, "config", "", "serve configuration `FILE` (YAML)")
	lf.fs.BoolVar(&lf.asJSON, "json", false, "machine-readable output")
	lf.fs.Usage = func() { fmt.Fprint(lf.fs.Output(), ledgerUsage) }
	return lf
}

// parse reads flags that may come before or after the positional arguments.
func (lf *ledgerFlags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := lf.fs.Parse(args); err != nil {
			return nil, err
		}
		args = lf.fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// resolved is where the ledger is and how long it keeps records: serve's
// defaults, then the configuration file (read exactly as serve reads it),
// then the flags.
type resolved struct {
	dataDir   string
	spec      string
	domains   []string
	retention time.Duration
}

func (lf *ledgerFlags) resolve() (resolved, error) {
	c := defaultServeConfig()
	if lf.config != "" {
		if err := loadConfigFile(lf.config, &c); err != nil {
			return resolved{}, err
		}
	}
	r := resolved{dataDir: c.Data, spec: c.Ledger, domains: c.Domains, retention: time.Duration(c.Retention)}
	if lf.data != "" {
		r.dataDir = lf.data
	}
	if lf.spec != "" {
		r.spec = lf.spec
	}
	if len(lf.domains) > 0 {
		r.domains = lf.domains
	}
	if r.spec == "" && r.dataDir == "" {
		return r, errors.New("no ledger: give --data DIR (the embedded ledger), --ledger SPEC or --config FILE")
	}
	if r.retention <= 0 {
		r.retention = 30 * 24 * time.Hour
	}
	return r, nil
}

func (r resolved) open() (ledger.Ledger, error) {
	return ledger.Open(r.spec, r.dataDir, ledger.Options{Retention: r.retention})
}

func runLedgerImport(args []string) int {
	lf := newLedgerFlags("import")
	lf.fs.Var(&lf.domains, "domain", "import only mail from this `DOMAIN` (repeatable)")
	dryRun := lf.fs.Bool("dry-run", false, "read and report, write nothing")
	files, err := lf.parse(args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "ndrmilter ledger import: no log file given")
		fmt.Fprint(os.Stderr, ledgerUsage)
		return 2
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %v\n", err)
		return 2
	}
	var led ledger.Ledger
	if !*dryRun {
		var svc *httpapi.Client
		if led, svc, err = res.openOrService(); err != nil {
			fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %v\n", err)
			return 1
		}
		if svc != nil {
			return importThroughService(svc, files, res.domains, lf.asJSON)
		}
		defer led.Close()
	}
	files = oldestFirst(files)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	imp := newImporter(ctx, led, time.Now().Add(-res.retention))
	j := &postfixlog.LogJoiner{Domains: res.domains, PastCap: imp.pastCap}
	now := time.Now()
	var total postfixlog.LogStats
	status := 0
	for _, name := range files {
		st, err := importFile(name, j, now, imp.put)
		total.Lines += st.Lines
		total.Used += st.Used
		total.Ignored += st.Ignored
		total.Malformed += st.Malformed
		if err != nil {
			fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %s: %v\n", name, err)
			status = 1
			if ctx.Err() != nil || imp.failed() {
				break
			}
			continue
		}
		if !lf.asJSON {
			fmt.Printf("%s: %d lines, %d Postfix queue lines used, %d malformed (skipped)\n", name, st.Lines, st.Used, st.Malformed)
		}
	}
	// Messages still queued when the logs end (deferred) left too, or tried to.
	for _, r := range j.Flush() {
		if imp.put(r) != nil {
			break
		}
	}
	sum := imp.wait()
	if sum.Errors > 0 {
		status = 1
	}
	sum.Lines, sum.Malformed, sum.Skipped, sum.Incomplete = total.Lines, total.Malformed, j.Skipped, j.Dropped
	sum.CappedMessages, sum.CappedRecipients = j.CappedMessages, j.Capped
	sum.DryRun = *dryRun
	if lf.asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
		return status
	}
	verb := "imported"
	if *dryRun {
		verb = "would import"
	}
	fmt.Printf("%s %d messages (%d new, %d updated, %d already in the ledger, %d older than the retention period), %d errors\n",
		verb, sum.New+sum.Updated, sum.New, sum.Updated, sum.Known, sum.TooOld, sum.Errors)
	fmt.Printf("skipped %d messages that did not leave (local delivery, Postfix's own bounces, other domains), %d incomplete in the logs; %d malformed lines of %d\n",
		sum.Skipped, sum.Incomplete, sum.Malformed, sum.Lines)
	if sum.CappedMessages > 0 {
		fmt.Printf("capped %d messages with more than %d recipients: their records keep the first %d; the other %d recipients are kept as sender/recipient pairs only (a bounce for them is still matched)\n",
			sum.CappedMessages, ledger.MaxRecipients, ledger.MaxRecipients, sum.CappedRecipients)
	}
	return status
}

// oldestFirst orders log files by modification time, oldest first, so that
// a message whose lines span a rotation ("mail.log.1" then "mail.log", which
// a shell glob lists the other way round) is joined in the order it was
// logged. Standard input and files that cannot be read keep their place
// relative to each other at the end.
func oldestFirst(files []string) []string {
	type f struct {
		name string
		t    time.Time
		ok   bool
	}
	fs := make([]f, len(files))
	for i, n := range files {
		fs[i].name = n
		if n == "-" {
			continue
		}
		if st, err := os.Stat(n); err == nil {
			fs[i].t, fs[i].ok = st.ModTime(), true
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].ok != fs[j].ok {
			return fs[i].ok
		}
		return fs[i].ok && fs[i].t.Before(fs[j].t)
	})
	out := make([]string, len(fs))
	for i := range fs {
		out[i] = fs[i].name
	}
	return out
}

// importFile reads one log file ("-" for stdin) into j.
func importFile(name string, j *postfixlog.LogJoiner, now time.Time, put func(ledger.Record) error) (postfixlog.LogStats, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return postfixlog.LogStats{}, err
		}
		defer f.Close()
		r = f
	}
	return postfixlog.ReadLog(r, j, now, time.Local, put)
}

// importSummary is what an import did; its JSON form is --json's output.
type importSummary struct {
	New        int  `json:"new"`
	Updated    int  `json:"updated"`
	Known      int  `json:"already_known"`
	TooOld     int  `json:"older_than_retention"`
	Errors     int  `json:"errors"`
	Skipped    int  `json:"skipped_not_leaving"`
	Incomplete int  `json:"incomplete"`
	Lines      int  `json:"lines"`
	Malformed  int  `json:"malformed_lines"`
	DryRun     bool `json:"dry_run"`
	// CappedMessages had more recipients than a record keeps
	// (ledger.MaxRecipients); CappedRecipients were past that cap: kept as
	// (sender, recipient) pairs only.
	CappedMessages   int `json:"capped_messages"`
	CappedRecipients int `json:"capped_recipients"`
}

// Batches of an import. The first is small and each is twice the last, up
// to importBatchMax: bbolt splits its pages only at commit, so the keys one
// transaction puts on one page cost it time in their number squared, and
// growing batches keep them few per page while the ledger is young (and a
// small import finishes at once).
const (
	importBatchFirst = 512
	importBatchMax   = 4096
	importPairsMax   = 65536 // pairs past the cap per batch
)

// importer writes Records in batches (ledger.MergeBatch: thousands per
// bbolt transaction, hundreds per Redis round trip), on one goroutine while
// the log is read on others. The ledger merges each record into the one of
// its message (ledger.Ledger), so an import is idempotent and completes
// what the milter or an earlier import recorded; the ledger's Change is
// what the summary counts.
type importer struct {
	ctx    context.Context
	led    ledger.Ledger // nil for a dry run
	cutoff time.Time

	cur  *importBatch // being filled (by put and pastCap, on one goroutine)
	size int          // records of the next batch
	work chan *importBatch
	done chan struct{}

	mu  sync.Mutex
	sum importSummary
}

// importBatch is what one ledger.MergeBatch writes, with the pairs past the
// cap that came with it.
type importBatch struct {
	recs   []ledger.Record
	pairs  []importPairs
	npairs int
}

// importPairs are recipients past the cap of one message.
type importPairs struct {
	sender     string
	recipients []string
	t          time.Time
}

func newImporter(ctx context.Context, led ledger.Ledger, cutoff time.Time) *importer {
	imp := &importer{ctx: ctx, led: led, cutoff: cutoff, size: importBatchFirst,
		work: make(chan *importBatch, 1), done: make(chan struct{})}
	imp.cur = &importBatch{}
	go func() {
		defer close(imp.done)
		for b := range imp.work {
			imp.write(b)
		}
	}()
	return imp
}

// put queues r; it fails only when the import was interrupted.
func (imp *importer) put(r ledger.Record) error {
	if err := imp.ctx.Err(); err != nil {
		return err
	}
	if r.Time.Before(imp.cutoff) {
		imp.count(func(s *importSummary) { s.TooOld++ })
		return nil
	}
	imp.cur.recs = append(imp.cur.recs, r)
	if len(imp.cur.recs) >= imp.size {
		return imp.send()
	}
	return nil
}

// pastCap queues the pairs of recipients past the cap of a message
// (postfixlog.LogJoiner.PastCap).
func (imp *importer) pastCap(sender string, recipients []string, t time.Time) {
	if imp.ctx.Err() != nil || t.Before(imp.cutoff) {
		return
	}
	// One message's recipients come a thousand at a time: one write.
	if n := len(imp.cur.pairs); n > 0 && imp.cur.pairs[n-1].sender == sender && imp.cur.pairs[n-1].t.Equal(t) {
		imp.cur.pairs[n-1].recipients = append(imp.cur.pairs[n-1].recipients, recipients...)
	} else {
		imp.cur.pairs = append(imp.cur.pairs, importPairs{sender, recipients, t})
	}
	imp.cur.npairs += len(recipients)
	if imp.cur.npairs >= importPairsMax {
		imp.send()
	}
}

// send hands the batch being filled to the writer.
func (imp *importer) send() error {
	b := imp.cur
	if len(b.recs) == 0 && len(b.pairs) == 0 {
		return nil
	}
	imp.cur = &importBatch{recs: make([]ledger.Record, 0, min(2*imp.size, importBatchMax))}
	imp.size = min(2*imp.size, importBatchMax)
	select {
	case imp.work <- b:
		return nil
	case <-imp.ctx.Done():
		return imp.ctx.Err()
	}
}

func (imp *importer) failed() bool {
	imp.mu.Lock()
	defer imp.mu.Unlock()
	return imp.sum.Errors > 100
}

func (imp *importer) count(f func(*importSummary)) {
	imp.mu.Lock()
	f(&imp.sum)
	imp.mu.Unlock()
}

// write writes one batch and counts what it changed.
func (imp *importer) write(b *importBatch) {
	if imp.led == nil {
		imp.count(func(s *importSummary) { s.New += len(b.recs) })
		return
	}
	for _, p := range b.pairs {
		if err := ledger.RecordPairs(imp.ctx, imp.led, p.sender, p.recipients, p.t); err != nil {
			imp.count(func(s *importSummary) { s.Errors++ })
			fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %d recipients past the cap of a message from %s: %v\n", len(p.recipients), p.sender, err)
		}
	}
	if len(b.recs) == 0 {
		return
	}
	changes, err := ledger.MergeBatch(imp.ctx, imp.led, b.recs)
	imp.count(func(s *importSummary) {
		for _, c := range changes {
			switch c {
			case ledger.ChangeAdded:
				s.New++
			case ledger.ChangeMerged:
				s.Updated++
			case ledger.ChangeTooOld:
				s.TooOld++
			default:
				s.Known++
			}
		}
		s.Errors += len(b.recs) - len(changes)
	})
	if err != nil {
		r := b.recs[min(len(changes), len(b.recs)-1)]
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %d records from %s (queue id %s) on: %v\n", len(b.recs)-len(changes), r.MessageID, r.QueueID, err)
	}
}

// wait writes what is queued, stops the writer and returns the summary.
func (imp *importer) wait() importSummary {
	imp.send()
	close(imp.work)
	<-imp.done
	imp.mu.Lock()
	defer imp.mu.Unlock()
	return imp.sum
}

// lookupRecord is the JSON form of "ledger lookup --json".
type lookupRecord struct {
	Found      bool      `json:"found"`
	MessageID  string    `json:"message_id,omitempty"`
	QueueID    string    `json:"queue_id,omitempty"`
	Sender     string    `json:"sender,omitempty"`
	Recipients []string  `json:"recipients,omitempty"`
	Time       time.Time `json:"time,omitzero"`
}

func runLedgerLookup(args []string) int {
	lf := newLedgerFlags("lookup")
	ids, err := lf.parse(args)
	if err != nil {
		return 2
	}
	if len(ids) == 0 {
		fmt.Fprintln(os.Stderr, "ndrmilter ledger lookup: give a Message-ID (or a Postfix queue id)")
		return 2
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %v\n", err)
		return 2
	}
	led, err := res.openReader()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %v\n", err)
		return 1
	}
	defer led.Close()
	status := 0
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := led.ByMessageID(ctx, id)
		if errors.Is(err, ledger.ErrNotFound) && !strings.ContainsAny(id, "@<>") {
			r, err = led.ByQueueID(ctx, id)
		}
		cancel()
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			status = 1
			if lf.asJSON {
				json.NewEncoder(os.Stdout).Encode(lookupRecord{Found: false, MessageID: ledger.NormalizeMessageID(id)})
			} else {
				fmt.Printf("%s: not in the ledger: no message with this Message-ID left through this server within the retention period (%s)\n", id, res.retention)
			}
		case err != nil:
			fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %s: %v\n", id, err)
			return 1
		case lf.asJSON:
			json.NewEncoder(os.Stdout).Encode(lookupRecord{Found: true, MessageID: r.MessageID, QueueID: r.QueueID,
				Sender: r.Sender, Recipients: r.Recipients, Time: r.Time})
		default:
			sender := r.Sender
			if sender == "" {
				sender = "<> (null sender)"
			}
			fmt.Printf("Message-ID: <%s>\nQueue ID:   %s\nSent:       %s (%s ago)\nFrom:       %s\nTo:         %s\n",
				r.MessageID, orDash(r.QueueID), r.Time.Local().Format(time.RFC1123Z), time.Since(r.Time).Round(time.Second),
				sender, strings.Join(r.Recipients, ", "))
			fmt.Println("A bounce that names this message is about mail that really left: not backscatter.")
		}
	}
	return status
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// statsRecord is the JSON form of "ledger stats --json".
type statsRecord struct {
	Backend string    `json:"backend"`
	Records int64     `json:"records"`
	Oldest  time.Time `json:"oldest,omitzero"`
	Newest  time.Time `json:"newest,omitzero"`
}

func runLedgerStats(args []string) int {
	lf := newLedgerFlags("stats")
	if rest, err := lf.parse(args); err != nil {
		return 2
	} else if len(rest) > 0 {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: unexpected argument %q\n", rest[0])
		return 2
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return 2
	}
	led, err := res.openReader()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return 1
	}
	defer led.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := led.Stats(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return 1
	}
	if lf.asJSON {
		json.NewEncoder(os.Stdout).Encode(statsRecord{Backend: st.Backend, Records: st.Records, Oldest: st.Oldest, Newest: st.Newest})
		return 0
	}
	fmt.Printf("backend:   %s\nrecords:   %d\nretention: %s\n", st.Backend, st.Records, res.retention)
	if st.Records > 0 {
		fmt.Printf("oldest:    %s\nnewest:    %s\n", st.Oldest.Local().Format(time.RFC1123Z), st.Newest.Local().Format(time.RFC1123Z))
	}
	return 0
}
