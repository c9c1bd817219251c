package dsn

// Caps on what Parse reads. A bounce is hostile input: these bound the time and
// memory one message can cost. When a cap cuts the reading short, Parse sets
// Report.Truncated and returns what it read so far. The caps of the MIME
// reading itself (message.MaxDepth, message.MaxParts,
// message.MaxHeaderFields) are package message's; a report nested in a
// report is looked for at most maxEmbedDepth deep.
const (
	// MaxInput is the number of bytes of a message Parse looks at. Reports put
	// what matters first; the rest (a large attachment) is ignored.
	MaxInput = 64 << 20

	// MaxDecodedPart is the size of a part's body Parse decodes (base64,
	// quoted-printable, charset). Text beyond it is cut: no report needs more.
	MaxDecodedPart = 1 << 20

	// MaxStatusPart is the size of a delivery-status part Parse reads:
	// room for MaxRecipients records with long diagnostics.
	MaxStatusPart = 8 << 20

	// MaxRecipients is the number of recipient records one report may hold.
	// It bounds what reading one report allocates (a list bounce of 11,000
	// failed recipients cost 7 MB to read with 10,000 kept, 2 MB with
	// 1,000; explaining them, 6 MB and 0.6 MB): the milter shows 10 and
	// judges on 20 (sender, recipient) pairs, and a report with more
	// recipients than this says so (Report.Truncated).
	MaxRecipients = 1000

	// MaxDiagnostic is the length of one recipient's diagnostic text.
	MaxDiagnostic = 4096

	// MaxScanText is how much free text the free-text scanners read of one
	// message when it has no RFC 3464 part.
	MaxScanText = 256 << 10

	// MaxNotice caps Report.Notice: the human-readable part of a notice
	// states its facts (how long the server tried, the infected file) in
	// its first lines, and a fact is shown in a header.
	MaxNotice = 8 << 10
)
