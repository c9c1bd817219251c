package frontend

// Results of the record spool, as the label of ndrmilter_record_spool_total.
const (
	spoolSpooled  = "spooled"
	spoolReplayed = "replayed"
	spoolDropped  = "dropped"
)

// spool is the local file of outbound records the ledger has not taken.
type spool struct{}

func (s *spool) size() int64 { return 0 }
