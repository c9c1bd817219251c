package dsn

import "sync"

// fieldArena hands out the field slices of the headers one Parse reads
// (the message's, each MIME part's, the original message's) from one
// backing array, reused from one Parse to the next. Those fields are many
// (64 bytes each, dozens per message) and all die when Parse returns: the
// Report keeps copies, never the fields. Allocating them afresh was a third
// of the bytes Parse allocated.
//
// It also keeps the array of the message's lower-case text (parser.lowerText),
// which likewise never outlives Parse.
type fieldArena struct {
	buf   []field // the fields handed out so far; the spare capacity is free
	lower []byte  // the array for the lower-case text; its contents are dead
	parts []part  // the array for the message's MIME parts (mimeWalker.parts)
}

// maxArenaLower caps the lower-case text array kept for the next Parse.
const maxArenaLower = 1 << 20

// maxArenaFields caps the arena kept for the next Parse, so that one
// message with a huge header does not pin its memory in the pool.
const maxArenaFields = 4096

// arenaPool holds arenas between calls of Parse (one per concurrent call).
var arenaPool = sync.Pool{New: func() any { return &fieldArena{buf: make([]field, 0, 512)} }}

// getArena returns an empty arena from the pool.
func getArena() *fieldArena { return arenaPool.Get().(*fieldArena) }

// release empties a and puts it back in the pool. The fields are cleared
// so that the pool does not keep the message they point into alive.
func (a *fieldArena) release() {
	clear(a.buf)
	a.buf = a.buf[:0]
	clear(a.parts[:cap(a.parts)])
	if cap(a.parts) > MaxParts {
		a.parts = nil
	}
	if cap(a.lower) > maxArenaLower {
		a.lower = nil
	}
	if cap(a.buf) <= maxArenaFields {
		arenaPool.Put(a)
	}
}

// parseHeader is parseHeaderCap with the fields taken from the arena; the
// header's capacity ends at its length, so that an append by the caller
// cannot reach the next header's fields. A nil arena allocates.
func (a *fieldArena) parseHeader(b []byte, n int) (h header, body []byte, truncated bool) {
	if a == nil {
		return parseHeaderCap(b, n)
	}
	if cap(a.buf)-len(a.buf) < n {
		// Full: start a new array; the headers already handed out keep
		// the old one alive.
		a.buf = make([]field, 0, max(2*cap(a.buf), 512))
	}
	start := len(a.buf)
	h, body, truncated = parseHeaderInto(b, a.buf[start:start])
	if len(h) > 0 && cap(h) == cap(a.buf)-start {
		// Still in the arena's array (it did not outgrow the spare room).
		a.buf = a.buf[:start+len(h)]
	}
	return h[:len(h):len(h)], body, truncated
}

// toLower is the package's toLower into the arena's text array (a nil
// arena allocates). Only one such text is live per Parse: the parser's.
func (a *fieldArena) toLower(b []byte) []byte {
	if a == nil {
		return toLower(b)
	}
	a.lower = lowerInto(a.lower, b)
	return a.lower
}
