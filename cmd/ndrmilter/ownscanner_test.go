package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainLeavesOutTheBackscatterFooterWhenTheSendersOwnScannerStoppedMalware:
// "if you do not recognise the original message, delete this notice" must
// not follow a notice from the sender's own outgoing scanner, which points
// at an infected computer or account; a receiving server's virus refusal
// keeps it.
func TestExplainLeavesOutTheBackscatterFooterWhenTheSendersOwnScannerStoppedMalware(t *testing.T) {
	own, _, _ := runCLI(t, "", "explain", filepath.Join("testdata", "bounces", "amavis-own-outbound-virus.eml"))
	if !strings.Contains(own, "own organization's mail server") || strings.Contains(own, "backscatter") {
		t.Errorf("own scanner's notice:\n%s\nwant the own scanner's reading and no backscatter footer", own)
	}
	remote, _, _ := runCLI(t, "", "explain", filepath.Join("..", "..", "internal", "testdata", "bounces", "eml", "amavis-remote-virus-01.eml"))
	if !strings.Contains(remote, "backscatter") {
		t.Errorf("receiving scanner's refusal:\n%s\nwant the backscatter footer", remote)
	}
}
