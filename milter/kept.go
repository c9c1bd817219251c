package milter

// keptBlock is the size of the blocks a kept text grows by.
const keptBlock = 64 << 10

// kept is the start of a message kept for parsing. It grows in blocks, so
// that a message kept a chunk at a time is never copied while it arrives
// (a slice that doubles leaves copies behind for the collector, which a
// hundred 2 MB bounces at once make hundreds of megabytes); bytes joins
// the blocks once, when the report is read.
type kept struct {
	blocks [][]byte
	n      int
}

// size returns the number of bytes kept.
func (k *kept) size() int { return k.n }

// add appends p.
func (k *kept) add(p []byte) {
	for len(p) > 0 {
		if len(k.blocks) == 0 || len(k.blocks[len(k.blocks)-1]) == cap(k.blocks[len(k.blocks)-1]) {
			k.blocks = append(k.blocks, make([]byte, 0, keptBlock))
		}
		last := &k.blocks[len(k.blocks)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
		k.n += n
	}
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
