package milter

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
)

// rawMTA speaks the milter protocol by hand, as Postfix does, where
// go-milter's client cannot: it offers SMFIP_SKIP and takes SMFIR_SKIP.
type rawMTA struct {
	t  *testing.T
	nc net.Conn
}

func dialRaw(t *testing.T, addr string, offer gomilter.OptProtocol) (*rawMTA, gomilter.OptProtocol) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	m := &rawMTA{t: t, nc: nc}
	data := make([]byte, 12)
	binary.BigEndian.PutUint32(data, 6)
	binary.BigEndian.PutUint32(data[4:], 0x1ff)
	binary.BigEndian.PutUint32(data[8:], uint32(offer))
	m.send('O', data)
	code, reply := m.read()
	if code != 'O' || len(reply) < 12 {
		t.Fatalf("option negotiation: reply %c %q", code, reply)
	}
	return m, gomilter.OptProtocol(binary.BigEndian.Uint32(reply[8:]))
}

func (m *rawMTA) send(code byte, data []byte) {
	m.t.Helper()
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)+1))
	b = append(append(b, code), data...)
	if _, err := m.nc.Write(b); err != nil {
		m.t.Fatal(err)
	}
}

func (m *rawMTA) read() (byte, []byte) {
	m.t.Helper()
	var n uint32
	if err := binary.Read(m.nc, binary.BigEndian, &n); err != nil {
		m.t.Fatalf("reading a reply: %v", err)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(m.nc, b); err != nil {
		m.t.Fatal(err)
	}
	return b[0], b[1:]
}

func cstrings(s ...string) []byte {
	var b []byte
	for _, v := range s {
		b = append(append(b, v...), 0)
	}
	return b
}

// message sends one message from 203.0.113.9 and returns the reply to each
// body chunk and the packets at end of message.
func (m *rawMTA) message(from, rcpt string, fields [][2]string, chunks int) (bodyReplies []byte, eom []byte) {
	m.t.Helper()
	m.send('D', append([]byte{'C'}, cstrings("{client_addr}", "203.0.113.9")...))
	m.send('C', append(append(cstrings("client.example.net"), '4', 0x9c, 0x40), cstrings("203.0.113.9")...))
	if c, _ := m.read(); c != 'c' {
		m.t.Fatalf("connect: reply %c", c)
	}
	m.send('D', append([]byte{'M'}, cstrings("{client_addr}", "203.0.113.9", "i", "4TSKIP1")...))
	m.send('M', cstrings("<"+from+">"))
	if c, _ := m.read(); c != 'c' {
		m.t.Fatalf("MAIL: reply %c", c)
	}
	m.send('R', cstrings("<"+rcpt+">"))
	if c, _ := m.read(); c != 'c' {
		m.t.Fatalf("RCPT: reply %c", c)
	}
	for _, f := range fields {
		m.send('L', cstrings(f[0], f[1])) // no reply: SMFIP_NOHREPL
	}
	m.send('N', nil)
	if c, _ := m.read(); c != 'c' {
		m.t.Fatalf("end of header: reply %c", c)
	}
	chunk := []byte(strings.Repeat("body line\r\n", 5000))
	for i := 0; i < chunks; i++ {
		m.send('B', chunk)
		c, _ := m.read()
		bodyReplies = append(bodyReplies, c)
		if c == 's' {
			break
		}
	}
	m.send('E', nil)
	for {
		c, _ := m.read()
		eom = append(eom, c)
		if c != 'h' && c != 'm' && c != 'b' && c != 'q' {
			return bodyReplies, eom
		}
	}
}

// The milter asks Postfix for no HELO and no reply to header fields (when
// offered), and,
// when the MTA offers SMFIP_SKIP, skips the body of inbound mail it does
// not read (here, ordinary mail with a forged X-NDR-* field) after the
// first chunk, its forged field still deleted at end of message; without
// the offer it asks for every chunk.
func TestBodyNotReadIsSkippedWhenTheMTATakesSkip(t *testing.T) {
	_, addr := startServer(t, Config{}, nil)
	fields := [][2]string{{"From", "friend@remote.example"}, {"To", "alice@example.org"},
		{"Message-ID", "<skip.1@remote.example>"}, {"X-NDR-Backscatter", "no; forged"}}

	m, asked := dialRaw(t, addr, gomilter.OptSkip|gomilter.OptNoHeaderReply|gomilter.OptNoHelo)
	if asked&(gomilter.OptNoHelo|gomilter.OptNoHeaderReply) != gomilter.OptNoHelo|gomilter.OptNoHeaderReply {
		t.Fatalf("negotiated protocol options %#x: want no HELO and no header replies", asked)
	}
	body, eom := m.message("friend@remote.example", "alice@example.org", fields, 4)
	if string(body) != "s" {
		t.Fatalf("replies to the body chunks %q, want one skip", body)
	}
	if string(eom) != "mc" {
		t.Fatalf("end of message %q, want the forged field deleted (m) and continue", eom)
	}

	// An MTA that does not offer to do without header replies (Postfix
	// with milter_protocol = 2) gets them: it would wait for each.
	if _, asked := dialRaw(t, addr, 0); asked&gomilter.OptNoHeaderReply != 0 || asked&gomilter.OptNoHelo == 0 {
		t.Fatalf("options asked of an MTA that offers none: %#x, want no HELO only", asked)
	}

	m, _ = dialRaw(t, addr, gomilter.OptNoHeaderReply|gomilter.OptNoHelo)
	body, eom = m.message("friend@remote.example", "alice@example.org", fields, 4)
	if string(body) != "cccc" || string(eom) != "mc" {
		t.Fatalf("without SMFIP_SKIP offered: body replies %q, end of message %q; want cccc and mc", body, eom)
	}
}
