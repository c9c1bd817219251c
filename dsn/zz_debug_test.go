package dsn

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	f := os.Getenv("DBG")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	h, body, _ := parseHeader(b)
	w := mimeWalker{}
	w.walk(h, body, 0)
	p := &parser{rep: &Report{}, hdr: h, parts: w.parts}
	for _, pt := range w.parts {
		fmt.Println("part", pt.mediaType, pt.cte, len(pt.body))
	}
	p.loadText()
	fmt.Println("evidence", bounceEvidence(h, p.lowerText))
	cut := p.cut()
	fmt.Printf("SECTION:\n%s\n", p.text[:cut])
	for _, b := range scanRecipientBlocks(p.text[:cut], p.lowerText[:cut]) {
		fmt.Printf("BLOCK %+v\n", b)
	}
}
