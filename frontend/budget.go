package frontend

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// DefaultBufferBudget is the default total of message bytes a front end
// holds in memory at once, over all its sessions.
const DefaultBufferBudget = 256 << 20

// MaxHeaderBytes bounds the header section of one message a front end
// holds. Real mail has a few KiB of header (Postfix cuts each field at
// header_size_limit, 100 KiB); a larger one is hostile or broken.
const MaxHeaderBytes = 1 << 20

// budgetStep is the unit in which a Hold reserves bytes, so that a message
// that grows a line at a time does not touch the shared counter each time.
const budgetStep = 64 << 10

// maxParses bounds the reports read at once: reading a 2 MB report of a
// thousand recipients allocates about 5 MB for a moment. Bounces are a small
// share of mail; four at once read thousands a second.
const maxParses = 4

// parseWait bounds how long a message waits for a parse slot before it
// passes unread: far below the MTA's timeout for the end of data (Postfix's
// milter_content_timeout, 60 s in the deploy kit).
const parseWait = 20 * time.Second

// Budget bounds what the messages of one front end process may cost in
// memory, over all their sessions: the bytes held (header fields, and the
// text of a possible report kept for parsing), and the reports being read at
// once (reading one report allocates a few times its size; reading is CPU
// work, so more at once than there are CPUs only costs memory). A message
// that would go over the budget passes unread (fail open): the front end
// still deletes its X-NDR-* fields, and counts it.
//
// A Budget is safe for concurrent use.
type Budget struct {
	max    atomic.Int64
	used   atomic.Int64
	parses chan struct{}
	m      *Metrics
	log    *zap.Logger
	quiet  *throttle
}

// NewBudget returns a Budget of maxBytes (0: DefaultBufferBudget) whose
// refusals are counted in m (nil: not counted) and logged to log (nil: not
// logged; at most a line every ten seconds), with one parse slot per CPU
// the Go scheduler uses, at least two and at most maxParses.
func NewBudget(maxBytes int64, m *Metrics, log *zap.Logger) *Budget {
	if log == nil {
		log = zap.NewNop()
	}
	b := &Budget{parses: make(chan struct{}, min(maxParses, max(2, runtime.GOMAXPROCS(0)))), m: m, log: log, quiet: newThrottle(refusalLogEvery)}
	b.SetMax(maxBytes)
	if m != nil {
		m.setBudget(b)
	}
	return b
}

// SetMax changes the number of bytes the budget allows (0:
// DefaultBufferBudget). What is held stays held.
func (b *Budget) SetMax(maxBytes int64) {
	if maxBytes <= 0 {
		maxBytes = DefaultBufferBudget
	}
	b.max.Store(maxBytes)
}

// Max returns the number of bytes the budget allows.
func (b *Budget) Max() int64 { return b.max.Load() }

// Used returns the number of bytes held now.
func (b *Budget) Used() int64 { return b.used.Load() }

// reserve takes n bytes of the budget, or nothing and false when that would
// go over it.
func (b *Budget) reserve(n int64) bool {
	for {
		used := b.used.Load()
		if used+n > b.max.Load() {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// exceeded counts and logs a message that passes unread because of limit.
func (b *Budget) exceeded(limit string) {
	if b.m != nil {
		b.m.BudgetExceeded.WithLabelValues(limit).Inc()
	}
	b.quiet.do(limit, func(n int) {
		b.log.Warn("a message passes unread (its X-NDR-* fields removed): memory limit reached",
			zap.String("limit", limit), zap.Int64("buffered_bytes", b.Used()), zap.Int64("buffer_budget", b.Max()),
			zap.Int("not_logged_since", n))
	})
}

// Parse runs read, the reading of a report, when a parse slot is free,
// waiting at most parseWait for one. It reports whether read ran; when it
// did not, the message passes unread and it is counted.
func (b *Budget) Parse(read func()) bool {
	if b == nil {
		read()
		return true
	}
	select {
	case b.parses <- struct{}{}:
	default:
		t := time.NewTimer(parseWait)
		select {
		case b.parses <- struct{}{}:
			t.Stop()
		case <-t.C:
			b.exceeded(LimitParseWait)
			return false
		}
	}
	defer func() { <-b.parses }()
	read()
	return true
}

// Limits a message can run into, as the label of
// ndrmilter_budget_exceeded_total.
const (
	LimitBuffer    = "buffer"     // the budget of bytes held
	LimitParseWait = "parse_wait" // no parse slot within parseWait
)

// Hold is what one message (or one connection, message after message)
// holds of a Budget. The zero Hold, and a Hold of a nil Budget, hold
// nothing and always grow. A Hold is safe for concurrent use: a connection
// closed under a session releases what the session held.
type Hold struct {
	b    *Budget
	mu   sync.Mutex
	n    int64 // reserved
	over bool  // a Grow failed since the last Release
}

// NewHold returns an empty Hold on b.
func (b *Budget) NewHold() *Hold { return &Hold{b: b} }

// Grow makes sure the Hold holds at least total bytes, reserving more of
// the budget in steps. It reports false, and the Hold is over the budget
// until its Release, when the budget has no room left; the message then
// passes unread (see Over), and it is counted once.
func (h *Hold) Grow(total int) bool {
	if h == nil || h.b == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over {
		return false
	}
	need := int64(total) - h.n
	if need <= 0 {
		return true
	}
	need = (need + budgetStep - 1) / budgetStep * budgetStep
	if !h.b.reserve(need) {
		h.over = true
		h.b.exceeded(LimitBuffer)
		return false
	}
	h.n += need
	return true
}

// Over reports whether a Grow failed since the last Release.
func (h *Hold) Over() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.over
}

// Release gives back everything the Hold holds, and clears Over.
func (h *Hold) Release() {
	if h == nil || h.b == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.b.used.Add(-h.n)
	h.n, h.over = 0, false
}
