package frontend

import "context"

// WaitIdle waits, at shutdown, until a server has no connection left or ctx
// ends, and returns ctx's error in the second case. state reports, under
// the server's lock, how many connections are open and the channel that is
// closed when the last of them closes (a server replaces it each time it
// becomes idle, so WaitIdle asks again after every wake-up). Both front
// ends (milter and filter) drain this way.
func WaitIdle(ctx context.Context, state func() (open int, idle <-chan struct{})) error {
	for {
		n, idle := state()
		if n == 0 {
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
