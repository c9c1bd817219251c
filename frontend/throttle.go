package frontend

import (
	"sync"
	"time"
)

// throttle lets a log line of each kind through at most once a period, and
// says how many it held back since: a flood of refusals must not become a
// flood of log lines.
type throttle struct {
	every time.Duration

	mu     sync.Mutex
	logged map[string]time.Time // kind -> last let through
	quiet  map[string]int       // kind -> held back since
}

func newThrottle(every time.Duration) *throttle {
	return &throttle{every: every, logged: map[string]time.Time{}, quiet: map[string]int{}}
}

// do calls log, with the number of events of that kind held back since the
// last one let through, unless one was let through within the period.
func (t *throttle) do(kind string, log func(heldBack int)) {
	t.mu.Lock()
	now := time.Now()
	if last, ok := t.logged[kind]; ok && now.Sub(last) < t.every {
		t.quiet[kind]++
		t.mu.Unlock()
		return
	}
	n := t.quiet[kind]
	t.logged[kind], t.quiet[kind] = now, 0
	t.mu.Unlock()
	log(n)
}
