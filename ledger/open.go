package ledger

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Options configure a ledger.
type Options struct {
	// Retention is how long a record is kept (default 30 days).
	Retention time.Duration
	// LookupTimeout bounds each lookup against a remote ledger (default 50 ms).
	LookupTimeout time.Duration
	// WriteTimeout bounds each write against a remote ledger (default 1 s).
	WriteTimeout time.Duration
	// SweepInterval is how often the embedded ledger deletes expired records
	// (default: an hour, or Retention/24 if that is shorter).
	SweepInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.Retention <= 0 {
		o.Retention = 30 * 24 * time.Hour
	}
	if o.LookupTimeout <= 0 {
		o.LookupTimeout = 50 * time.Millisecond
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = time.Second
	}
	return o
}

// Open opens the ledger that spec names: "" for the bbolt file in dataDir,
// "bolt:PATH" for a bbolt file elsewhere, "redis://..." or "rediss://..." for
// a shared Redis ledger.
func Open(spec, dataDir string, o Options) (Ledger, error) {
	o = o.withDefaults()
	switch {
	case spec == "" || spec == "bolt" || spec == "bbolt":
		if dataDir == "" {
			return nil, fmt.Errorf("ledger: no data directory for the embedded ledger")
		}
		return OpenBolt(filepath.Join(dataDir, "ledger.db"), o)
	case strings.HasPrefix(spec, "bolt:"):
		return OpenBolt(strings.TrimPrefix(spec, "bolt:"), o)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		return OpenRedis(spec, o)
	}
	return nil, fmt.Errorf("ledger: unknown ledger %q: expected empty (bbolt in the data directory), bolt:PATH, redis://HOST:PORT/DB or rediss://HOST:PORT/DB", spec)
}
