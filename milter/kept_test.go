package milter

import (
	"bytes"
	"strings"
	"testing"
)

// keptCapacity is the memory k's blocks take.
func keptCapacity(k *kept) int {
	n := 0
	for _, b := range k.blocks {
		n += cap(b)
	}
	return n
}

func TestKeptTextIsWhatWasAddedInOrder(t *testing.T) {
	var k kept
	var want bytes.Buffer
	for i, part := range []string{"Subject: x\r\n", "\r\n", strings.Repeat("a", 70_000), "tail", strings.Repeat("b", 3000), strings.Repeat("c", 200_000)} {
		switch i % 3 {
		case 0:
			k.addString(part)
		case 1:
			k.add([]byte(part))
		case 2:
			k.adopt([]byte(part))
		}
		want.WriteString(part)
	}
	if k.size() != want.Len() {
		t.Fatalf("size %d, want %d", k.size(), want.Len())
	}
	if !bytes.Equal(k.bytes(), want.Bytes()) {
		t.Fatal("the text kept differs from the parts added, in order")
	}
}

func TestKeptSmallBounceHoldsAboutItsSize(t *testing.T) {
	var k kept
	k.addString(strings.Repeat("h", 1500)) // a header
	k.adopt(make([]byte, 3500))            // its body, one chunk
	if c := keptCapacity(&k); c > 2*5000 {
		t.Fatalf("a 5000-byte message holds %d bytes of blocks; want at most twice its size", c)
	}
}

func TestKeptAdoptsABodyChunkWithoutCopying(t *testing.T) {
	var k kept
	k.addString("Subject: x\r\n\r\n")
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	k.adopt(chunk)
	last := k.blocks[len(k.blocks)-1]
	if &last[0] != &chunk[0] {
		t.Fatal("a chunk larger than the room left was copied, not kept as it came")
	}
	k.addString("more")
	if &k.blocks[len(k.blocks)-2][0] != &chunk[0] || string(k.bytes()[len(k.bytes())-4:]) != "more" {
		t.Fatal("text added after an adopted chunk was written into the chunk or lost")
	}
}
