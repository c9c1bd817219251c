package message

import (
	"sync"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Arena lends the memory of one reading of a message (its header fields,
// its parts, a lower-case copy of its text) from arrays kept from one
// reading to the next. Those fields are many (dozens per message) and all
// die when the reading is done, as long as the reader keeps copies, never
// the fields: allocating them afresh was a third of the bytes dsn.Parse
// allocated.
//
// An Arena is for one goroutine. Get one with NewArena and give it back
// with Release once nothing read through it is in use. A nil *Arena is
// valid: its methods then allocate.
type Arena struct {
	fields []Field // the fields handed out so far; the spare capacity is free
	lower  []byte  // the array for the lower-case text; its contents are dead
	parts  []Part  // the array for the message's parts (Message.Parts)
}

// maxArenaLower caps the lower-case text array kept for the next reading.
const maxArenaLower = 1 << 20

// maxArenaFields caps the field array kept for the next reading, so that
// one message with a huge header does not pin its memory in the pool.
const maxArenaFields = 4096

// arenaPool holds arenas between readings (one per concurrent reading).
var arenaPool = sync.Pool{New: func() any { return &Arena{fields: make([]Field, 0, 512)} }}

// NewArena returns an empty arena, from a pool.
func NewArena() *Arena { return arenaPool.Get().(*Arena) }

// Release empties a and puts it back in the pool: nothing read through it
// may be used after. The fields and parts are cleared so that the pool does
// not keep the message they point into alive.
func (a *Arena) Release() {
	if a == nil {
		return
	}
	clear(a.fields)
	a.fields = a.fields[:0]
	clear(a.parts[:cap(a.parts)])
	if cap(a.parts) > MaxParts {
		a.parts = nil
	}
	if cap(a.lower) > maxArenaLower {
		a.lower = nil
	}
	if cap(a.fields) <= maxArenaFields {
		arenaPool.Put(a)
	}
}

// ReadHeader is the package's ReadHeader with the fields in the arena.
func (a *Arena) ReadHeader(b []byte) (h Header, body []byte, truncated bool) {
	return a.readHeader(b, 32)
}

// readHeader is ReadHeader with the fields taken from the arena, room for
// n of them wanted; the header's capacity ends at its length, so that an
// append by the caller cannot reach the next header's fields. A nil arena
// allocates room for n fields.
func (a *Arena) readHeader(b []byte, n int) (h Header, body []byte, truncated bool) {
	if a == nil {
		return readHeaderCap(b, n)
	}
	if cap(a.fields)-len(a.fields) < n {
		// Full: start a new array; the headers already handed out keep
		// the old one alive.
		a.fields = make([]Field, 0, max(2*cap(a.fields), 512))
	}
	start := len(a.fields)
	h, body, truncated = readHeaderInto(b, a.fields[start:start])
	if len(h) > 0 && cap(h) == cap(a.fields)-start {
		// Still in the arena's array (it did not outgrow the spare room).
		a.fields = a.fields[:start+len(h)]
	}
	return h[:len(h):len(h)], body, truncated
}

// Lower returns b in ASCII lower case, in the arena's text array (a nil
// arena allocates). The array holds one such text: each call reuses it, so
// the text a previous call returned must no longer be in use.
func (a *Arena) Lower(b []byte) []byte {
	if a == nil {
		return ascii.ToLower(b)
	}
	a.lower = ascii.LowerInto(a.lower, b)
	return a.lower
}
