package rules

import (
	"crypto/sha256"
	"encoding/hex"
)

// BuiltinDigest names the built-in knowledge a binary carries: the first 12
// hexadecimal digits of the SHA-256 of the embedded rules file. Two binaries
// with the same digest read bounces with the same built-in rules; "ndrmilter
// version" prints it.
func BuiltinDigest() string {
	sum := sha256.Sum256(builtinRules)
	return hex.EncodeToString(sum[:6])
}
