//go:build e2e

package postfixtest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// message is a minimal message with Message-ID <id>.
func message(id, to string) string {
	return fmt.Sprintf("From: %s\nTo: %s\nSubject: postfixtest\nMessage-ID: <%s>\n\nhello\n", User, to, id)
}

func TestLoggedInUserRelaysToTheSink(t *testing.T) {
	t.Parallel()
	p := Start(t, Config{})
	c := p.Dial(t, "")
	c.Login()
	id := fmt.Sprintf("relay.%d@client.test", time.Now().UnixNano())
	if err := c.Send(User, []string{"bob@remote.test"}, message(id, "bob@remote.test")); err != nil {
		t.Fatalf("send: %v", err)
	}
	c.Quit()
	m, ok := p.Sink.Await(20*time.Second, func(m Message) bool { return strings.Contains(m.Header.Get("Message-Id"), id) })
	if !ok {
		t.Fatalf("message <%s> did not reach the sink", id)
	}
	if m.From != User || len(m.To) != 1 || m.To[0] != "bob@remote.test" {
		t.Errorf("the sink got %s -> %v, want %s -> bob@remote.test", m.From, m.To, User)
	}
	if _, ok := p.AwaitLog(5*time.Second, regexp.MustCompile(`sasl_method=PLAIN, sasl_username=`+regexp.QuoteMeta(User))); !ok {
		t.Errorf("Postfix did not log the SASL login")
	}
}

func TestMailToLocalDomainComesBackAsPostfixBounce(t *testing.T) {
	t.Parallel()
	p := Start(t, Config{})
	c := p.Dial(t, "")
	c.Login()
	id := fmt.Sprintf("ghost.%d@client.test", time.Now().UnixNano())
	if err := c.Send(User, []string{"ghost@" + LocalDomain}, message(id, "ghost@"+LocalDomain)); err != nil {
		t.Fatalf("send to ghost@%s: %v", LocalDomain, err)
	}
	c.Quit()
	b, ok := p.Sink.Await(20*time.Second, func(m Message) bool { return m.From == "" && len(m.To) == 1 && m.To[0] == User })
	if !ok {
		t.Fatalf("no bounce for ghost@%s reached the sink", LocalDomain)
	}
	if !strings.Contains(string(b.Data), id) {
		t.Errorf("the bounce does not quote the original Message-ID %s:\n%s", id, b.Data)
	}
}

func TestUnauthenticatedClientOutsideMynetworksCannotRelay(t *testing.T) {
	t.Parallel()
	p := Start(t, Config{Settings: []string{"mynetworks = 127.0.0.2/32"}})
	c := p.Dial(t, "127.0.0.1")
	err := c.Send("mallory@remote.test", []string{"bob@remote.test"}, message("relay.denied@client.test", "bob@remote.test"))
	if err == nil || !strings.Contains(err.Error(), "Relay access denied") {
		t.Errorf("relay from outside mynetworks without login: %v, want Relay access denied", err)
	}
	trusted := p.Dial(t, "127.0.0.2")
	if err := trusted.Send("alice@example.org", []string{"bob@remote.test"}, message("relay.trusted@client.test", "bob@remote.test")); err != nil {
		t.Errorf("relay from mynetworks (127.0.0.2) without login: %v, want accepted", err)
	}
}
