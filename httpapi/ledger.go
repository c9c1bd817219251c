package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

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

// ImportSummary is the answer of POST /api/v1/ledger/import, with the keys
// of "ndrmilter ledger import --json".
type ImportSummary struct {
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

// importWriters write an import's records at once, so that the embedded
// ledger commits them in groups.
const importWriters = 16

// handleLedgerImport is POST /api/v1/ledger/import: the body is a Postfix
// log (plain or gzip), read by package postfixlog and merged into the
// ledger record by record (ledger.Ledger.Merge), the writes the milter
// makes. Query: domain (repeatable; default the service's domains),
// dry_run=true.
func (s *Server) handleLedgerImport(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ledger == nil {
		ledgerUnavailable(w, errNoLedger)
		return
	}
	q := r.URL.Query()
	dryRun := q.Get("dry_run") == "true" || q.Get("dry_run") == "1"
	domains := q["domain"]
	if len(domains) == 0 {
		domains = s.current().Domains
	}
	j := &postfixlog.LogJoiner{Domains: domains}
	cutoff := time.Now().Add(-s.cfg.Retention)
	sum := ImportSummary{DryRun: dryRun}
	var mu sync.Mutex
	count := func(f func(*ImportSummary)) { mu.Lock(); f(&sum); mu.Unlock() }
	ctx := r.Context()
	work := make(chan ledger.Record)
	var wg sync.WaitGroup
	for range importWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rec := range work {
				s.importOne(ctx, rec, cutoff, dryRun, count)
			}
		}()
	}
	put := func(rec ledger.Record) error {
		select {
		case work <- rec:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st, err := postfixlog.ReadLog(r.Body, j, time.Now(), time.Local, put)
	if err == nil {
		for _, rec := range j.Flush() {
			if err = put(rec); err != nil {
				break
			}
		}
	}
	close(work)
	wg.Wait()
	if err != nil {
		writeError(w, http.StatusBadRequest, "the log could not be read: "+err.Error())
		return
	}
	sum.Lines, sum.Malformed, sum.Skipped, sum.Incomplete = st.Lines, st.Malformed, j.Skipped, j.Dropped
	// Records that could not be written are counted in errors, as the
	// command line counts them: the rest was imported.
	writeJSON(w, http.StatusOK, sum)
}

// importOne records one message of an import.
func (s *Server) importOne(ctx context.Context, rec ledger.Record, cutoff time.Time, dryRun bool, count func(func(*ImportSummary))) {
	if rec.Time.Before(cutoff) {
		count(func(s *ImportSummary) { s.TooOld++ })
		return
	}
	if dryRun {
		count(func(s *ImportSummary) { s.New++ })
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	change, err := s.cfg.Ledger.Merge(ctx, rec)
	if err != nil {
		s.cfg.Log.Warn("import through the API: a record was not written", zapRecord(rec, err)...)
	}
	count(func(s *ImportSummary) {
		switch {
		case err != nil:
			s.Errors++
		case change == ledger.ChangeAdded:
			s.New++
		case change == ledger.ChangeMerged:
			s.Updated++
		case change == ledger.ChangeTooOld:
			s.TooOld++
		default:
			s.Known++
		}
	})
}
