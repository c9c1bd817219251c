package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// LedgerRecord is the answer of GET /api/v1/ledger/{id}, with the keys of
// "ndrmilter ledger lookup --json".
type LedgerRecord struct {
	Found      bool      `json:"found"`
	MessageID  string    `json:"message_id,omitempty"`
	QueueID    string    `json:"queue_id,omitempty"`
	Sender     string    `json:"sender,omitempty"`
	Recipients []string  `json:"recipients,omitempty"`
	Time       time.Time `json:"time,omitzero"`
}

// LedgerStats is the answer of GET /api/v1/ledger/stats, with the keys of
// "ndrmilter ledger stats --json".
type LedgerStats struct {
	Backend string    `json:"backend"`
	Records int64     `json:"records"`
	Oldest  time.Time `json:"oldest,omitzero"`
	Newest  time.Time `json:"newest,omitzero"`
}

// errNoLedger is the error of the ledger routes of a service without one.
var errNoLedger = errors.New("this service has no ledger")

// lookup finds a message by Message-ID, else (for an id that cannot be a
// Message-ID) by queue id, as "ndrmilter ledger lookup" does.
func (s *Server) lookup(ctx context.Context, id string) (ledger.Record, error) {
	if s.cfg.Ledger == nil {
		return ledger.Record{}, errNoLedger
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := s.cfg.Ledger.ByMessageID(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) && !strings.ContainsAny(id, "@<>") {
		r, err = s.cfg.Ledger.ByQueueID(ctx, id)
	}
	return r, err
}

// ledgerUnavailable answers a ledger error other than "not found".
func ledgerUnavailable(w http.ResponseWriter, err error) {
	if errors.Is(err, errNoLedger) {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeError(w, http.StatusServiceUnavailable, "the ledger cannot be read: "+err.Error())
}

// handleLedgerLookup is GET /api/v1/ledger/{id}.
func (s *Server) handleLedgerLookup(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.PathValue("id"))
	if id == "" {
		writeError(w, http.StatusBadRequest, "give a Message-ID or a queue id: /api/v1/ledger/{id}")
		return
	}
	rec, err := s.lookup(r.Context(), id)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s is not in the ledger: no message with this Message-ID or queue id left through this server within the retention period", id))
	case err != nil:
		ledgerUnavailable(w, err)
	default:
		writeJSON(w, http.StatusOK, LedgerRecord{Found: true, MessageID: rec.MessageID, QueueID: rec.QueueID,
			Sender: rec.Sender, Recipients: rec.Recipients, Time: rec.Time})
	}
}

// handleLedgerStats is GET /api/v1/ledger/stats.
func (s *Server) handleLedgerStats(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ledger == nil {
		ledgerUnavailable(w, errNoLedger)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	st, err := s.cfg.Ledger.Stats(ctx)
	if err != nil {
		ledgerUnavailable(w, err)
		return
	}
	writeJSON(w, http.StatusOK, LedgerStats{Backend: st.Backend, Records: st.Records, Oldest: st.Oldest, Newest: st.Newest})
}

// Defaults of Settings.ImportMaxBytes and ImportTimeout. An import through
// the API is bounded so that one request cannot hold the service's ledger
// writer and a core for hours. 1 GiB of body is about 1.1 million messages
// of plain Postfix log (a busy server's fortnight), and four to ten times
// that gzipped, as "ndrmilter ledger import" sends it; the import reads
// some 35 MB of log a second on one core, so 30 minutes leave a wide margin
// on a loaded host. Logs beyond that are imported with the service
// stopped, or in parts.
const (
	DefaultImportMaxBytes = 1 << 30
	DefaultImportTimeout  = 30 * time.Minute
)

// handleLedgerImport is POST /api/v1/ledger/import: the body is a Postfix
// log (plain or gzip), imported by package postfixlog as "ndrmilter ledger
// import" imports a file (postfixlog.Import: the same batched writes, the
// same cap on recipients, the same summary). Query: domain (repeatable;
// default the service's domains), dry_run=true.
//
// An import is bounded by the settings ImportMaxBytes (the body, as sent)
// and ImportTimeout (reading it and writing its records): past either it
// stops, with 413 or 408. What was written before stays written: an import
// is idempotent, and running it again (with the service stopped, or
// higher limits) completes it.
func (s *Server) handleLedgerImport(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ledger == nil {
		ledgerUnavailable(w, errNoLedger)
		return
	}
	set := s.current()
	if r.ContentLength > set.ImportMaxBytes {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is %d bytes, over the limit of %d (http_import_max_bytes): "+
			"send less log at once, compressed (gzip), or import with the service stopped", r.ContentLength, set.ImportMaxBytes))
		return
	}
	q := r.URL.Query()
	opts := postfixlog.ImportOptions{
		Domains: q["domain"],
		Cutoff:  time.Now().Add(-s.cfg.Retention),
		DryRun:  q.Get("dry_run") == "true" || q.Get("dry_run") == "1",
		OnError: func(err error) { s.cfg.Log.Warn("import through the API: records were not written", zap.Error(err)) },
	}
	if len(opts.Domains) == 0 {
		opts.Domains = set.Domains
	}
	deadline := time.Now().Add(set.ImportTimeout)
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	// The body's reads end at the deadline too: a client that stops
	// sending does not hold a read, and the import, past it.
	http.NewResponseController(w).SetReadDeadline(deadline)
	sum, err := postfixlog.Import(ctx, s.cfg.Ledger, http.MaxBytesReader(w, r.Body, set.ImportMaxBytes), opts)
	// Past the deadline, the body's read fails, and that cancels the
	// request's context too: the deadline is what stopped the import.
	timedOut := !time.Now().Before(deadline) && (err != nil || ctx.Err() != nil)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over the limit of %d bytes (http_import_max_bytes): "+
			"the import stopped there, %s; send the rest of the log, or import with the service stopped", set.ImportMaxBytes, importedSoFar(sum)))
	case timedOut:
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the import did not end within %s (http_import_timeout): "+
			"it stopped there, %s; send less log at once, or import with the service stopped", set.ImportTimeout, importedSoFar(sum)))
	case err != nil:
		writeError(w, http.StatusBadRequest, "the log could not be read: "+err.Error())
	default:
		// Records that could not be written are counted in errors, as
		// the command line counts them: the rest was imported.
		writeJSON(w, http.StatusOK, sum)
	}
}

// importedSoFar says what an import that stopped early had done.
func importedSoFar(sum postfixlog.Summary) string {
	return fmt.Sprintf("after %d lines: %d messages imported (%d new, %d updated), %d already in the ledger, %d errors; "+
		"what was imported stays, and importing the same log again completes it",
		sum.Lines, sum.New+sum.Updated, sum.New, sum.Updated, sum.Known, sum.Errors)
}
