package ledger

import "errors"

// OpenBolt opens (creating if needed) the bbolt ledger at path.
// PLACEHOLDER: the milter helper replaces this file.
func OpenBolt(path string, o Options) (Ledger, error) {
	return nil, errors.New("ledger: bbolt ledger not implemented yet")
}
