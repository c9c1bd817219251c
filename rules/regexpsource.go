package rules

import (
	"regexp/syntax"
	"strconv"
	"strings"
)

// regexpSource writes re out as a regexp that parses back to the same
// tree, as re.String() does, but without working out which flags each
// part needs: String does that with unicode.SimpleFold over every rune of
// every literal and class, and it was most of the cost of a pattern's
// first use (issue 14: 6% of explain over the shared corpus). Every part
// here carries its own flags ((?i:...), (?s:.), (?m:^)), and every group,
// repetition and alternation is wrapped in (?:...), which the parser drops.
func regexpSource(re *syntax.Regexp) string {
	var b strings.Builder
	writeRegexp(&b, re)
	return b.String()
}

func writeRegexp(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:`)
		}
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`)`)
		}
	case syntax.OpCharClass:
		b.WriteByte('[')
		if len(re.Rune) == 0 {
			b.WriteString(`^\x00-\x{10FFFF}`)
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteByte('-')
				writeRune(b, re.Rune[i+1])
			}
		}
		b.WriteByte(']')
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		if re.Name != "" {
			b.WriteString(`(?P<` + re.Name + `>`)
		} else {
			b.WriteByte('(')
		}
		writeRegexp(b, re.Sub[0])
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		writeRegexp(b, re.Sub[0])
		b.WriteByte(')')
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			b.WriteByte('{')
			b.WriteString(strconv.Itoa(re.Min))
			if re.Max != re.Min {
				b.WriteByte(',')
				if re.Max >= 0 {
					b.WriteString(strconv.Itoa(re.Max))
				}
			}
			b.WriteByte('}')
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			writeRegexp(b, s)
		}
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRegexp(b, s)
		}
		b.WriteByte(')')
	default:
		// Not an op of package syntax's parser: the standard writer knows.
		b.WriteString(`(?:` + re.String() + `)`)
	}
}

// writeRune writes r so that it stands for itself, in a literal or a class.
func writeRune(b *strings.Builder, r rune) {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == ' ', r == '_':
		b.WriteRune(r)
	default:
		b.WriteString(`\x{`)
		b.WriteString(strconv.FormatInt(int64(r), 16))
		b.WriteByte('}')
	}
}
