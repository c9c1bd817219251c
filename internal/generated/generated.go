// Package generated checks a file that go generate writes from a source
// in the repository (the built-in rules, the message catalogs): the
// committed file must be what the source generates now, so that a change
// to the source cannot ship without its generated form.
package generated

import (
	"bytes"
	"os"
	"testing"
)

// Check writes src to file when update is set (go generate runs the test
// with -update); otherwise it fails t, saying how to regenerate, when the
// committed file differs from src. It reports whether the file is current.
func Check(t testing.TB, file string, src []byte, update bool, regenerate string) bool {
	t.Helper()
	if update {
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return false
	}
	have, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Errorf("%s is not what its source generates now: the source (or the generator) changed without regenerating; run %s", file, regenerate)
		return false
	}
	return true
}
