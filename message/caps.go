package message

// Caps on what a reading of a message looks at. A message is hostile input:
// these bound the time and memory one message can cost. When a cap cuts the
// reading short, the reader says so (Message.Truncated, or the truncated
// result of ReadHeader) and returns what it read so far.
const (
	// MaxDepth is how deep MIME parts may nest (multipart in multipart).
	// Real reports nest three or four deep.
	MaxDepth = 12

	// MaxParts is the number of MIME parts read of one message.
	MaxParts = 512

	// MaxHeaderFields is the number of header fields read from one header block.
	MaxHeaderFields = 1000
)
