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
	"runtime/debug"
	"sort"
	"strings"
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
While serve (or filter) holds the embedded ledger, the commands go through its
HTTP API; an import sent there (gzip-compressed) is bounded by the service's
http_import_max_bytes and http_import_timeout.
`

// runLedger is "ndrmilter ledger import|lookup|stats".
func runLedger(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, ledgerUsage)
		return exitUsage
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
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "ndrmilter ledger: unknown subcommand %q\n%s", args[0], ledgerUsage)
	return exitUsage
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
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "ndrmilter ledger import: no log file given")
		fmt.Fprint(os.Stderr, ledgerUsage)
		return exitUsage
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %v\n", err)
		return exitUsage
	}
	var led ledger.Ledger
	if !*dryRun {
		var svc *httpapi.Client
		if led, svc, err = res.openOrService(); err != nil {
			fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %v\n", err)
			return exitLedger
		}
		if svc != nil {
			return importThroughService(svc, files, res.domains, lf.asJSON)
		}
		defer led.Close()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(postfixlog.ImportMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	imp := postfixlog.NewImporter(ctx, led, postfixlog.ImportOptions{
		Domains: res.domains,
		Cutoff:  time.Now().Add(-res.retention),
		DryRun:  *dryRun,
		OnError: func(err error) { fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %v\n", err) },
	})
	status := exitOK
	failing := false // the ledger failed: the import stopped reading
	for _, name := range oldestFirst(files) {
		st, err := importFile(imp, name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ndrmilter ledger import: %s: %v\n", name, err)
			status = exitNo
			failing = errors.Is(err, postfixlog.ErrLedgerFailing)
			if ctx.Err() != nil || failing {
				break
			}
			continue
		}
		if !lf.asJSON {
			fmt.Printf("%s: %d lines, %d Postfix queue lines used, %d malformed (skipped)\n", name, st.Lines, st.Used, st.Malformed)
		}
	}
	sum := imp.Finish()
	printImportSummary(sum, lf.asJSON)
	return importStatus(status, sum, failing)
}

// importStatus is the exit status of an import that read its files with
// status and did what sum says: exitLedger when the ledger could not be
// used (it took none of the records it was given, or failed so often that
// the import stopped), exitNo when some records were not written.
func importStatus(status int, sum postfixlog.Summary, failing bool) int {
	switch {
	case failing || sum.Errors > 0 && sum.New+sum.Updated+sum.Known == 0:
		return exitLedger
	case sum.Errors > 0:
		return exitNo
	}
	return status
}

// printImportSummary writes what an import did, as --json or as text.
func printImportSummary(sum postfixlog.Summary, asJSON bool) {
	if asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
		return
	}
	verb := "imported"
	if sum.DryRun {
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

// openLog opens a log file, or standard input for "-".
func openLog(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(name)
}

// importFile reads one log file ("-" for stdin) into imp.
func importFile(imp *postfixlog.Importer, name string) (postfixlog.LogStats, error) {
	f, err := openLog(name)
	if err != nil {
		return postfixlog.LogStats{}, err
	}
	defer f.Close()
	return imp.AddLog(f)
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
		return exitUsage
	}
	if len(ids) == 0 {
		fmt.Fprintln(os.Stderr, "ndrmilter ledger lookup: give a Message-ID (or a Postfix queue id)")
		return exitUsage
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %v\n", err)
		return exitUsage
	}
	led, err := res.openReader()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %v\n", err)
		return exitLedger
	}
	defer led.Close()
	status := exitOK
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := led.ByMessageID(ctx, id)
		if errors.Is(err, ledger.ErrNotFound) && !strings.ContainsAny(id, "@<>") {
			r, err = led.ByQueueID(ctx, id)
		}
		cancel()
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			status = exitNo
			if lf.asJSON {
				json.NewEncoder(os.Stdout).Encode(lookupRecord{Found: false, MessageID: ledger.NormalizeMessageID(id)})
			} else {
				fmt.Printf("%s: not in the ledger: no message with this Message-ID left through this server within the retention period (%s)\n", id, res.retention)
			}
		case err != nil:
			fmt.Fprintf(os.Stderr, "ndrmilter ledger lookup: %s: %v\n", id, err)
			return exitLedger
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
		return exitUsage
	} else if len(rest) > 0 {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	res, err := lf.resolve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return exitUsage
	}
	led, err := res.openReader()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return exitLedger
	}
	defer led.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := led.Stats(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ndrmilter ledger stats: %v\n", err)
		return exitLedger
	}
	if lf.asJSON {
		json.NewEncoder(os.Stdout).Encode(statsRecord{Backend: st.Backend, Records: st.Records, Oldest: st.Oldest, Newest: st.Newest})
		return exitOK
	}
	fmt.Printf("backend:   %s\nrecords:   %d\nretention: %s\n", st.Backend, st.Records, res.retention)
	if st.Records > 0 {
		fmt.Printf("oldest:    %s\nnewest:    %s\n", st.Oldest.Local().Format(time.RFC1123Z), st.Newest.Local().Format(time.RFC1123Z))
	}
	return exitOK
}
