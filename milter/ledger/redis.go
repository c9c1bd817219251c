package ledger

import "errors"

// OpenRedis connects to the Redis ledger that url names.
// PLACEHOLDER: the redis helper replaces this file.
func OpenRedis(url string, o Options) (Ledger, error) {
	return nil, errors.New("ledger: redis ledger not implemented yet")
}
