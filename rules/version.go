package rules

import (
	"crypto/sha256"
	"encoding/hex"
)

// BuiltinDigest names the built-in knowledge a binary carries: the first 12
// hexadecimal digits of the SHA-256 of the rules file it was built from
// (rules.yaml, as go generate read it into builtin_gen.go). Two binaries
// with the same digest read bounces with the same built-in rules; "ndrmilter
// version" prints it.
func BuiltinDigest() string { return builtinDigest }

// digestOf is BuiltinDigest's digest of a rules file.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}
