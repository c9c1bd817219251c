package httpapi

import (
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// zapRecord are the log fields of a record that could not be written.
func zapRecord(r ledger.Record, err error) []zap.Field {
	return []zap.Field{zap.String("message_id", r.MessageID), zap.String("queue_id", r.QueueID), zap.Error(err)}
}
