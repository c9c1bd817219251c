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
	j := &postfixlog.LogJoiner{Domains: res.domains}
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
}

// importer writes Records with a few writers at once, so that a ledger that
// commits in groups (bbolt) syncs once per group, not once per record. The
// ledger merges each record into the one of its message (ledger.Ledger), so
// an import is idempotent and completes what the milter or an earlier
// import recorded; the ledger's Change is what the summary counts.
type importer struct {
	ctx    context.Context
	led    ledger.Ledger // nil for a dry run
	cutoff time.Time

	work chan ledger.Record
	wg   sync.WaitGroup

	mu  sync.Mutex
	sum importSummary
}

const importWriters = 32

func newImporter(ctx context.Context, led ledger.Ledger, cutoff time.Time) *importer {
	imp := &importer{ctx: ctx, led: led, cutoff: cutoff, work: make(chan ledger.Record)}
	for i := 0; i < importWriters; i++ {
		imp.wg.Add(1)
		go func() {
			defer imp.wg.Done()
			for r := range imp.work {
				imp.write(r)
			}
		}()
	}
	return imp
}

// put hands r to a writer; it fails only when the import was interrupted.
func (imp *importer) put(r ledger.Record) error {
	select {
	case imp.work <- r:
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

func (imp *importer) write(r ledger.Record) {
	if r.Time.Before(imp.cutoff) {
		imp.count(func(s *importSummary) { s.TooOld++ })
		return
	}
	if imp.led == nil {
		imp.count(func(s *importSummary) { s.New++ })
		return
	}
	ctx, cancel := context.WithTimeout(imp.ctx, 30*time.Second)
	defer cancel()
	change, err := imp.led.Merge(ctx, r)
	if err != nil {
		imp.count(func(s *importSummary) { s.Errors++ })
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: record %s (queue id %s): %v\n", r.MessageID, r.QueueID, err)
		return
	}
	imp.count(func(s *importSummary) {
		switch change {
		case ledger.ChangeAdded:
			s.New++
		case ledger.ChangeMerged:
			s.Updated++
		case ledger.ChangeTooOld:
			s.TooOld++
		default:
			s.Known++
		}
	})
}

// wait stops the writers and returns the summary.
func (imp *importer) wait() importSummary {
	close(imp.work)
	imp.wg.Wait()
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
