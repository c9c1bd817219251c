package postfixtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
)

// Queued is a message in an instance's queue, as postqueue -j shows it.
type Queued struct {
	// Queue is where it is: "incoming", "active", "deferred" or "hold".
	Queue string `json:"queue_name"`
	// ID is its queue id.
	ID string `json:"queue_id"`
	// Sender is its envelope sender, "" for a bounce.
	Sender     string `json:"sender"`
	Recipients []struct {
		Address string `json:"address"`
		// DelayReason says why delivery was deferred, when it was.
		DelayReason string `json:"delay_reason"`
	} `json:"recipients"`
}

// Queue returns the messages in the instance's queue (postqueue -j), or
// fails the test.
func (p *Instance) Queue() []Queued {
	p.t.Helper()
	out, err := exec.Command(program(p.t, "postqueue"), "-c", p.etc, "-j").Output()
	if err != nil {
		p.t.Fatalf("postfixtest: postqueue -j: %v", err)
	}
	var q []Queued
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var m Queued
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			p.t.Fatalf("postfixtest: postqueue -j: %v in %q", err, sc.Text())
		}
		q = append(q, m)
	}
	return q
}

// Sendmail submits msg (lines ending in "\n") with the instance's
// sendmail(1) as from to the recipients, as a program on the mail host
// would: pickup(8) takes it from the maildrop. It fails the test when
// sendmail refuses.
func (p *Instance) Sendmail(from string, to []string, msg string) {
	p.t.Helper()
	args := append([]string{"-C", p.etc, "-f", from, "-i", "--"}, to...)
	cmd := exec.Command(program(p.t, "sendmail"), args...)
	cmd.Stdin = strings.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("postfixtest: sendmail: %v\n%s\n%s", err, out, p.LogTail(20))
	}
}
