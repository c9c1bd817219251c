package message

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/generated"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

var update = flag.Bool("update", false, "write charset_gen.go from golang.org/x/text's htmlindex and ianaindex (go generate ./message)")

const charsetGenFile = "charset_gen.go"

// indexLookup is how lookupCharset looked a name up before charset_gen.go:
// htmlindex first, then ianaindex.MIME. charset_gen.go is generated from
// it, and lookupCharset must answer as it does.
func indexLookup(name string) encoding.Encoding {
	if e, err := htmlindex.Get(name); err == nil && e != nil {
		return e
	}
	if e, err := ianaindex.MIME.Encoding(name); err == nil && e != nil {
		return e
	}
	return nil
}

// ianaASCII is ianaindex's US-ASCII encoding (its type is not exported),
// which asciiEncoding stands for.
func ianaASCII(t testing.TB) encoding.Encoding {
	e, err := ianaindex.MIME.Encoding("US-ASCII")
	if err != nil || e == nil {
		t.Fatalf("ianaindex has no US-ASCII: %v", err)
	}
	return e
}

// charsetCandidate is an encoding the generated table can name, with the
// Go expression that names it in charset_gen.go.
type charsetCandidate struct {
	expr string
	enc  encoding.Encoding
}

// charsetCandidates are the encodings htmlindex and ianaindex give, in the
// order of their numbers in charset_gen.go (append only: a new one at the
// end keeps the numbers of the others).
func charsetCandidates(t testing.TB) []charsetCandidate {
	return []charsetCandidate{
		{"asciiEncoding", ianaASCII(t)},
		{"unicode.UTF8", unicode.UTF8},
		{"unicode.UTF16(unicode.BigEndian, unicode.UseBOM)", unicode.UTF16(unicode.BigEndian, unicode.UseBOM)},
		{"unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
		{"unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
		{"charmap.CodePage037", charmap.CodePage037},
		{"charmap.CodePage437", charmap.CodePage437},
		{"charmap.CodePage850", charmap.CodePage850},
		{"charmap.CodePage852", charmap.CodePage852},
		{"charmap.CodePage855", charmap.CodePage855},
		{"charmap.CodePage858", charmap.CodePage858},
		{"charmap.CodePage860", charmap.CodePage860},
		{"charmap.CodePage862", charmap.CodePage862},
		{"charmap.CodePage863", charmap.CodePage863},
		{"charmap.CodePage865", charmap.CodePage865},
		{"charmap.CodePage866", charmap.CodePage866},
		{"charmap.CodePage1047", charmap.CodePage1047},
		{"charmap.CodePage1140", charmap.CodePage1140},
		{"charmap.ISO8859_1", charmap.ISO8859_1},
		{"charmap.ISO8859_2", charmap.ISO8859_2},
		{"charmap.ISO8859_3", charmap.ISO8859_3},
		{"charmap.ISO8859_4", charmap.ISO8859_4},
		{"charmap.ISO8859_5", charmap.ISO8859_5},
		{"charmap.ISO8859_6", charmap.ISO8859_6},
		{"charmap.ISO8859_6E", charmap.ISO8859_6E},
		{"charmap.ISO8859_6I", charmap.ISO8859_6I},
		{"charmap.ISO8859_7", charmap.ISO8859_7},
		{"charmap.ISO8859_8", charmap.ISO8859_8},
		{"charmap.ISO8859_8E", charmap.ISO8859_8E},
		{"charmap.ISO8859_8I", charmap.ISO8859_8I},
		{"charmap.ISO8859_9", charmap.ISO8859_9},
		{"charmap.ISO8859_10", charmap.ISO8859_10},
		{"charmap.ISO8859_13", charmap.ISO8859_13},
		{"charmap.ISO8859_14", charmap.ISO8859_14},
		{"charmap.ISO8859_15", charmap.ISO8859_15},
		{"charmap.ISO8859_16", charmap.ISO8859_16},
		{"charmap.KOI8R", charmap.KOI8R},
		{"charmap.KOI8U", charmap.KOI8U},
		{"charmap.Macintosh", charmap.Macintosh},
		{"charmap.MacintoshCyrillic", charmap.MacintoshCyrillic},
		{"charmap.Windows874", charmap.Windows874},
		{"charmap.Windows1250", charmap.Windows1250},
		{"charmap.Windows1251", charmap.Windows1251},
		{"charmap.Windows1252", charmap.Windows1252},
		{"charmap.Windows1253", charmap.Windows1253},
		{"charmap.Windows1254", charmap.Windows1254},
		{"charmap.Windows1255", charmap.Windows1255},
		{"charmap.Windows1256", charmap.Windows1256},
		{"charmap.Windows1257", charmap.Windows1257},
		{"charmap.Windows1258", charmap.Windows1258},
		{"charmap.XUserDefined", charmap.XUserDefined},
		{"japanese.EUCJP", japanese.EUCJP},
		{"japanese.ISO2022JP", japanese.ISO2022JP},
		{"japanese.ShiftJIS", japanese.ShiftJIS},
		{"korean.EUCKR", korean.EUCKR},
		{"simplifiedchinese.GB18030", simplifiedchinese.GB18030},
		{"simplifiedchinese.GBK", simplifiedchinese.GBK},
		{"simplifiedchinese.HZGB2312", simplifiedchinese.HZGB2312},
		{"traditionalchinese.Big5", traditionalchinese.Big5},
		{"encoding.Replacement", encoding.Replacement},
	}
}

// indexNames are the names htmlindex and ianaindex.MIME know, as they are
// written in their tables. ianaindex's are read from its index (its
// unexported alias map, through reflect); htmlindex's from the source of
// its table (encoding/htmlindex/tables.go, var nameMap), which it does not
// export in any form.
func indexNames(t testing.TB) []string {
	t.Helper()
	var names []string
	alias := reflect.ValueOf(ianaindex.MIME).Elem().FieldByName("alias")
	if alias.Kind() != reflect.Map || alias.Type().Key().Kind() != reflect.String {
		t.Fatalf("ianaindex.Index has no alias map of names (a field alias of kind map[string]...): %v; golang.org/x/text changed", alias.Kind())
	}
	for it := alias.MapRange(); it.Next(); {
		names = append(names, it.Key().String())
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/text").Output()
	if err != nil {
		t.Fatalf("go list -m golang.org/x/text: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "encoding", "htmlindex", "tables.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var html []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "nameMap" || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if b, ok := kv.Key.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil {
					html = append(html, s)
				}
			}
		}
		return false
	})
	if len(html) < 100 {
		t.Fatalf("%s: expected the WHATWG labels in var nameMap, found %d names", file, len(html))
	}
	return append(names, html...)
}

// TestCharsetTableGenerated checks that charset_gen.go holds what
// htmlindex and ianaindex give for every name they know now, and with
// -update (go generate ./message) writes it.
func TestCharsetTableGenerated(t *testing.T) {
	candidates := charsetCandidates(t)
	type entry struct {
		name string
		id   int
	}
	seen := map[string]bool{}
	var entries []entry
	used := map[int]bool{}
	for _, n := range indexNames(t) {
		key := strings.ToLower(strings.TrimSpace(n))
		if seen[key] {
			continue
		}
		seen[key] = true
		e := indexLookup(key)
		if e == nil {
			continue // a registered name without an encoding in x/text
		}
		id := slices.IndexFunc(candidates, func(c charsetCandidate) bool { return c.enc == e })
		if id < 0 {
			t.Fatalf("charset %q: htmlindex/ianaindex give %v, which charsetCandidates does not name: add it", key, e)
		}
		used[id] = true
		entries = append(entries, entry{key, id})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })

	var b bytes.Buffer
	b.WriteString("// Code generated by go generate ./message from golang.org/x/text's htmlindex and ianaindex (TestCharsetTableGenerated); DO NOT EDIT.\n\n")
	b.WriteString("package message\n\nimport (\n")
	pkgs := map[string]bool{}
	for id := range used {
		if pkg, _, ok := strings.Cut(candidates[id].expr, "."); ok {
			pkgs[pkg] = true
		}
	}
	for _, p := range []string{"encoding", "charmap", "japanese", "korean", "simplifiedchinese", "traditionalchinese", "unicode"} {
		if !pkgs[p] {
			continue
		}
		path := "golang.org/x/text/encoding"
		if p != "encoding" {
			path += "/" + p
		}
		fmt.Fprintf(&b, "%q\n", path)
	}
	b.WriteString(")\n\n")
	b.WriteString("// charsetEntry is a charset name lookupCharset knows and the number of\n// its encoding (charsetEncoding).\n")
	b.WriteString("type charsetEntry struct {\n\tname string\n\tid   uint8\n}\n\n")
	fmt.Fprintf(&b, "// charsets are the %d names htmlindex.Get or ianaindex.MIME.Encoding gives an\n// encoding for, lowercase and sorted; htmlindex's encoding where both know the\n// name.\n", len(entries))
	b.WriteString("var charsets = [...]charsetEntry{\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "{%q, %d}, // %s\n", e.name, e.id, candidates[e.id].expr)
	}
	b.WriteString("}\n\n")
	b.WriteString("// charsetEncoding returns the encoding numbered id in charsets, nil if none is.\n")
	b.WriteString("func charsetEncoding(id uint8) encoding.Encoding {\n\tswitch id {\n")
	for id, c := range candidates {
		if used[id] {
			fmt.Fprintf(&b, "case %d:\nreturn %s\n", id, c.expr)
		}
	}
	b.WriteString("}\nreturn nil\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("generated %s does not parse: %v\n%s", charsetGenFile, err, b.Bytes())
	}
	generated.Check(t, charsetGenFile, src, *update, "go generate ./message")
}

// charsetSamples are texts decoded with both lookups' encodings: every
// byte value, and shift sequences of the stateful encodings.
var charsetSamples = [][]byte{
	func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}(),
	[]byte("\x1b$B$3$s$K$A$O\x1b(B ok"),
	[]byte("~{<:Ky2;S{#,~}"),
	[]byte("\xfe\xff\x00a\xd8\x3d\xde\x00"),
	[]byte("caf\xc3\xa9 \xe9t\xe9"),
}

// TestLookupCharsetMatchesHTMLAndIANAIndexes checks that lookupCharset
// gives, for every name htmlindex or ianaindex knows (as they write it,
// upper case, with spaces around) and for names neither knows, the
// encoding the two indexes gave, and that the encodings decode alike.
func TestLookupCharsetMatchesHTMLAndIANAIndexes(t *testing.T) {
	ascii := ianaASCII(t)
	names := []string{"", " ", "unknown-8bit", "x-unknown", "utf-7", "iso-8859-11", "utf-8\x00", "\u212aoi8-r", "\u212aOI8-U", "ıso-8859-1", "İSO-8859-2", "\u00a0latin2\u2003"}
	for _, n := range indexNames(t) {
		names = append(names, n, strings.ToUpper(n), strings.ToLower(n), " \t"+n+"\r\n")
	}
	for _, e := range charsets {
		names = append(names, e.name)
	}
	known := 0
	for _, n := range names {
		want, got := indexLookup(n), lookupCharset(n)
		if want == nil || got == nil {
			if want != got {
				t.Errorf("charset %q: lookupCharset gives %v, the indexes %v", n, got, want)
			}
			continue
		}
		known++
		if got != want && !(want == ascii && got == asciiEncoding) {
			t.Errorf("charset %q: lookupCharset gives %v, the indexes %v", n, got, want)
			continue
		}
		for _, s := range charsetSamples {
			w, werr := want.NewDecoder().Bytes(s)
			g, gerr := got.NewDecoder().Bytes(s)
			if !bytes.Equal(w, g) || (werr == nil) != (gerr == nil) {
				t.Errorf("charset %q decodes %q to %q (%v), the indexes' encoding to %q (%v)", n, s, g, gerr, w, werr)
			}
		}
	}
	// Every name of the table is in the indexes' names, each in four
	// forms, and in the table itself.
	if len(charsets) < 300 || known < 5*len(charsets) {
		t.Errorf("%d of %d names known to the indexes, %d in the table: expected more than 300 in the table, each known in five forms", known, len(names), len(charsets))
	}
}

// TestASCIIEncodingRoundTrip checks the US-ASCII encoding both ways: a byte
// above 0x7F decodes to U+FFFD, and a character above U+007F does not
// encode (encoding.ReplaceUnsupported makes it encoding.ASCIISub).
func TestASCIIEncodingRoundTrip(t *testing.T) {
	got, err := asciiEncoding.NewDecoder().String("a\xe9b")
	if err != nil || got != "a\uFFFDb" {
		t.Errorf("decoding %q gives %q, %v; want %q", "a\xe9b", got, err, "a\uFFFDb")
	}
	if _, err := asciiEncoding.NewEncoder().String("aéb"); err == nil {
		t.Errorf("encoding %q into US-ASCII gives no error", "aéb")
	}
	got, err = encoding.ReplaceUnsupported(asciiEncoding.NewEncoder()).String("aéb")
	if err != nil || got != "a\x1ab" {
		t.Errorf("encoding %q with replacement gives %q, %v; want %q", "aéb", got, err, "a\x1ab")
	}
	want, _ := encoding.ReplaceUnsupported(ianaASCII(t).NewEncoder()).String("aéb")
	if got != want {
		t.Errorf("encoding %q with replacement gives %q, ianaindex's US-ASCII %q", "aéb", got, want)
	}
}
