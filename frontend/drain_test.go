package frontend

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// WaitIdle returns when the last connection closes, and at the deadline
// when one never does.
func TestWaitIdleUntilTheLastConnectionClosesOrTheDeadline(t *testing.T) {
	var mu sync.Mutex
	open, idle := 2, make(chan struct{})
	state := func() (int, <-chan struct{}) {
		mu.Lock()
		defer mu.Unlock()
		return open, idle
	}
	closeOne := func() {
		mu.Lock()
		defer mu.Unlock()
		open--
		if open == 0 {
			close(idle)
			idle = make(chan struct{})
		}
	}
	go func() {
		closeOne()
		time.Sleep(10 * time.Millisecond)
		closeOne()
	}()
	if err := WaitIdle(context.Background(), state); err != nil {
		t.Fatalf("WaitIdle with connections that close: %v", err)
	}
	if n, _ := state(); n != 0 {
		t.Fatalf("WaitIdle returned with %d connections open", n)
	}

	open = 1
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := WaitIdle(ctx, state); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitIdle with a connection that stays: %v, want the deadline", err)
	}
}
