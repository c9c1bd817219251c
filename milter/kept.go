package milter

// Sizes of the blocks a kept text grows by: the first is small, each next
// one twice the one before, up to keptBlock, so that a bounce of a few
// kilobytes (most of them) holds a few kilobytes, not a block of 64 KiB.
const (
	keptFirst = 4 << 10
	keptBlock = 64 << 10
)

// kept is the start of a message kept for parsing. It grows in blocks, so
// that a message kept a chunk at a time is never copied while it arrives
// (a slice that doubles leaves copies behind for the collector, which a
// hundred 2 MB bounces at once make hundreds of megabytes); bytes joins
// the blocks once, when the report is read. A body chunk that does not fit
// in the room left is kept as it came (adopt), not copied.
type kept struct {
	blocks [][]byte
	n      int
}

// size returns the number of bytes kept.
func (k *kept) size() int { return k.n }

// add appends a copy of p.
func (k *kept) add(p []byte) { keepCopy(k, p) }

// addString appends a copy of s.
func (k *kept) addString(s string) { keepCopy(k, s) }

// keepCopy appends a copy of p to k, in the room left in its last block
// and then in new blocks.
func keepCopy[T string | []byte](k *kept, p T) {
	for len(p) > 0 {
		if k.room() == 0 {
			size := keptFirst
			if len(k.blocks) > 0 {
				size = min(2*cap(k.blocks[len(k.blocks)-1]), keptBlock)
			}
			k.blocks = append(k.blocks, make([]byte, 0, size))
		}
		last := &k.blocks[len(k.blocks)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
		k.n += n
	}
}

// room returns the bytes left in the last block.
func (k *kept) room() int {
	if len(k.blocks) == 0 {
		return 0
	}
	last := k.blocks[len(k.blocks)-1]
	return cap(last) - len(last)
}

// adopt appends p itself when it does not fit in the room left, and a copy
// of it otherwise: the caller gives p up. A body chunk is a slice go-milter
// (v0.5.0, readPacket) allocates for that packet alone and drops after the
// callback, so keeping it saves a copy of every chunk of a bounce.
func (k *kept) adopt(p []byte) {
	if len(p) <= k.room() {
		k.add(p)
		return
	}
	// Full capacity: the next add starts a block of its own.
	k.blocks = append(k.blocks, p[:len(p):len(p)])
	k.n += len(p)
}

// bytes returns the text kept, in one slice.
func (k *kept) bytes() []byte {
	switch len(k.blocks) {
	case 0:
		return nil
	case 1:
		return k.blocks[0]
	}
	b := make([]byte, 0, k.n)
	for _, bl := range k.blocks {
		b = append(b, bl...)
	}
	return b
}
