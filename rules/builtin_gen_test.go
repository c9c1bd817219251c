package rules

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/generated"
)

var update = flag.Bool("update", false, "write builtin_gen.go from rules.yaml (go generate ./rules)")

// builtinGenFile is the generated file, in the package directory.
const builtinGenFile = "builtin_gen.go"

// readRulesYAML reads rules.yaml from the package directory.
func readRulesYAML(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBuiltinGenerated checks that builtin_gen.go is what rules.yaml
// compiles to now, and with -update (go generate ./rules) writes it.
func TestBuiltinGenerated(t *testing.T) {
	data := readRulesYAML(t)
	set, err := compileBuiltin(data)
	if err != nil {
		t.Fatalf("rules.yaml: %v", err)
	}
	src, err := generateBuiltin(set, digestOf(data))
	if err != nil {
		t.Fatal(err)
	}
	if !generated.Check(t, builtinGenFile, src, *update, "go generate ./rules") {
		return
	}
}

// TestBuiltinGeneratedMakesNoCalls checks that builtin_gen.go is static
// data: a call in it (new(T) was one, 538 times) runs at every start of
// the binary, before main, and writes into the rules' pages (issue 14).
func TestBuiltinGeneratedMakesNoCalls(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), builtinGenFile, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if calls++; calls <= 3 {
				t.Errorf("%s has a call, run at start: %s(...)", builtinGenFile, types.ExprString(c.Fun))
			}
		}
		return true
	})
	if calls > 3 {
		t.Errorf("%s has %d calls in all, expected none", builtinGenFile, calls)
	}
}

// TestBuiltinEqualsRulesYAML checks that the rule set compiled into the
// binary is, field by field, the one Load compiles from rules.yaml, and
// classifies the same way.
func TestBuiltinEqualsRulesYAML(t *testing.T) {
	data := readRulesYAML(t)
	set, err := compileBuiltin(data)
	if err != nil {
		t.Fatalf("rules.yaml: %v", err)
	}
	var want, got goWriter
	if err := want.value(reflect.ValueOf(set), false); err != nil {
		t.Fatal(err)
	}
	if err := got.value(reflect.ValueOf(builtinSet), false); err != nil {
		t.Fatal(err)
	}
	if w, g := want.String(), got.String(); w != g {
		i := 0
		for i < len(w) && i < len(g) && w[i] == g[i] {
			i++
		}
		t.Fatalf("the compiled-in rules differ from rules.yaml compiled, at byte %d:\n yaml: %.200s\n  gen: %.200s", i, w[i:], g[i:])
	}
	if BuiltinDigest() != digestOf(data) {
		t.Errorf("BuiltinDigest %s, rules.yaml's is %s: run go generate ./rules", BuiltinDigest(), digestOf(data))
	}
	fromYAML := newEngine(set, newPhraseSet(set.phrases))
	compiled, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range sampleInputs() {
		if a, b := fromYAML.Classify(in), compiled.Classify(in); a != b {
			t.Errorf("%+v:\ncompiled in: %+v\n  from yaml: %+v", in, b, a)
		}
	}
}

// TestBuiltinTrieEqualsBuilt checks that the trie of the phrase automaton
// compiled into the binary is the one newTrie builds from the phrases of
// rules.yaml, and that the automaton made from it finds, in texts, the
// phrases plain substring search finds.
func TestBuiltinTrieEqualsBuilt(t *testing.T) {
	if builtinTrie == nil {
		t.Skip("built with rulesyaml: the trie is built at run time")
	}
	data := readRulesYAML(t)
	set, err := compileBuiltin(data)
	if err != nil {
		t.Fatalf("rules.yaml: %v", err)
	}
	built := newTrie(set.phrases)
	if !reflect.DeepEqual(built, builtinTrie) {
		t.Fatalf("builtinTrie (%d states) is not newTrie of rules.yaml's %d phrases (%d states): run go generate ./rules", len(builtinTrie.fail), len(set.phrases), len(built.fail))
	}
	if !slices.Equal(builtinPhrases.phrases, set.phrases) || builtinPhrases.trie != builtinTrie {
		t.Fatal("the built-in phrase set does not use builtinTrie with rules.yaml's phrases")
	}
	ps := builtinPhrases
	for _, in := range sampleInputs() {
		text := normalize(nil, in.Diagnostic)
		hits := make([]uint64, ps.words())
		ps.match(text, hits)
		for id, p := range ps.phrases {
			want := strings.Contains(string(text), p)
			if got := hits[id>>6]&(1<<(uint(id)&63)) != 0; got != want {
				t.Errorf("phrase %q in %q: automaton %t, substring search %t", p, text, got, want)
			}
		}
	}
}

// sampleInputs are records that reach many kinds of rules: codes alone,
// phrases, regexps with captures, hosts, delays, successes.
func sampleInputs() []Input {
	return []Input{
		{Status: "5.1.1"},
		{ReplyCode: "550"},
		{Action: "failed", Status: "5.1.1", ReplyCode: "550", Diagnostic: "550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table", Command: "RCPT", Recipient: "bob@example.com", RemoteMTA: "mx.example.com"},
		{Action: "failed", Status: "5.7.1", ReplyCode: "554", Diagnostic: "554 5.7.1 Service unavailable; Client host [192.0.2.9] blocked using zen.example.org; https://www.example.org/query/ip/192.0.2.9"},
		{Action: "delayed", Status: "4.4.1", Diagnostic: "connect to mx.example.net[192.0.2.1]:25: Connection timed out"},
		{Action: "failed", Status: "5.7.509", ReplyCode: "550", Diagnostic: "550 5.7.509 Access denied, sending domain [EXAMPLE.COM] does not pass DMARC verification and has a DMARC policy of reject."},
		{Action: "failed", Diagnostic: "552 5.2.2 mailbox full: quota exceeded", RemoteMTA: "mx.outlook.com"},
		{Action: "failed", Diagnostic: "552 message size 30000000 exceeds size limit 10485760 of server"},
		{Action: "delivered", Status: "2.0.0", Recipient: "amy@example.org"},
		{Action: "failed", Diagnostic: "retry timeout exceeded"},
	}
}

// generateBuiltin returns the Go source of builtin_gen.go for a compiled
// rule set: the set, and the trie of its phrase automaton.
func generateBuiltin(set *ruleSet, digest string) ([]byte, error) {
	var g goWriter
	if err := g.value(reflect.ValueOf(set), false); err != nil {
		return nil, err
	}
	var tg goWriter
	if err := tg.value(reflect.ValueOf(newTrie(set.phrases)), false); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go generate ./rules from rules.yaml (TestBuiltinGenerated); DO NOT EDIT.\n\n")
	b.WriteString("//go:build !rulesyaml\n\npackage rules\n\n")
	if len(g.imports) > 0 {
		b.WriteString("import (\n")
		paths := make([]string, 0, len(g.imports))
		for p := range g.imports {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			fmt.Fprintf(&b, "\t%q\n", p)
		}
		b.WriteString(")\n\n")
	}
	fmt.Fprintf(&b, "// builtinDigest is BuiltinDigest: of the rules.yaml this file was generated from.\nconst builtinDigest = %q\n\n", digest)
	b.WriteString("// builtinTrue and builtinFalse are the values of the rules' *bool fields.\nvar builtinTrue, builtinFalse = true, false\n\n")
	b.WriteString("// builtinSet is rules.yaml, compiled.\nvar builtinSet = ")
	b.Write(g.b.Bytes())
	b.WriteString("\n")
	for _, v := range g.side {
		fmt.Fprintf(&b, "\nvar %s = %s\n", v.name, v.value)
	}
	g.writeSlots(&b)
	b.WriteString("\n// builtinTrie is the trie of the phrase automaton of builtinSet, as newTrie\n// builds it from builtinSet.phrases.\nvar builtinTrie = ")
	b.Write(tg.b.Bytes())
	b.WriteString("\n")
	return format.Source(b.Bytes())
}

// goWriter writes a value of the engine's types as a Go expression that
// the compiler lays out as static data: composite literals of constants,
// no calls. Zero fields, empty slices and zero array elements are left out
// (the engine treats nil and empty alike), maps are written in key order.
// A pattern is written as its source: it compiles on first use.
type goWriter struct {
	b       bytes.Buffer
	imports map[string]bool
	side    []sideVar // the arrays the values of maps point into
	slots   *slotArrays
}

// slotArrays are the zero arrays that the pointers to empty slices point
// into (phrase.tr, alts.tr: filled by the translations when first needed),
// one array per slice type, one element per pointer.
type slotArrays struct {
	names []string       // in order of first use
	types map[string]int // type -> index in names and counts
	count []int
}

// slot returns the address of a new element of the slot array of type t
// (a slice type, as written).
func (g *goWriter) slot(t string) string {
	if g.slots == nil {
		g.slots = &slotArrays{types: map[string]int{}}
	}
	s := g.slots
	i, ok := s.types[t]
	if !ok {
		i = len(s.names)
		s.types[t] = i
		s.names = append(s.names, t)
		s.count = append(s.count, 0)
	}
	s.count[i]++
	return fmt.Sprintf("&builtinSlots%d[%d]", i+1, s.count[i]-1)
}

// writeSlots declares the slot arrays.
func (g *goWriter) writeSlots(b interface{ WriteString(string) (int, error) }) {
	if g.slots == nil {
		return
	}
	for i, t := range g.slots.names {
		b.WriteString(fmt.Sprintf("\n// builtinSlots%d are the translations of the %s slots, filled when first needed:\n// zero data, so that starting writes none of the rules' pages.\nvar builtinSlots%d [%d]%s\n", i+1, t, i+1, g.slots.count[i], t))
	}
}

// String returns what was written, with the side variables.
func (g *goWriter) String() string {
	var b strings.Builder
	b.Write(g.b.Bytes())
	for _, v := range g.side {
		fmt.Fprintf(&b, "\nvar %s = %s\n", v.name, v.value)
	}
	g.writeSlots(&b)
	return b.String()
}

// sideVar is a variable that a written value refers to.
type sideVar struct {
	name, value string
}

const rulesPkg = "github.com/ndrmilter/ndrmilter/rules"

var patternType = reflect.TypeFor[pattern]()

// typeName is t as written in package rules.
func (g *goWriter) typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" || t.PkgPath() == rulesPkg {
			return t.Name()
		}
		if g.imports == nil {
			g.imports = map[string]bool{}
		}
		g.imports[t.PkgPath()] = true
		return t.PkgPath()[strings.LastIndexByte(t.PkgPath(), '/')+1:] + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.typeName(t.Elem())
	case reflect.Slice:
		return "[]" + g.typeName(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), g.typeName(t.Elem()))
	case reflect.Map:
		return "map[" + g.typeName(t.Key()) + "]" + g.typeName(t.Elem())
	}
	return t.String()
}

// value writes v. elided says that the type of a composite literal may be
// left out (an element of a slice, an array or a map).
func (g *goWriter) value(v reflect.Value, elided bool) error {
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		g.b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		g.b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		g.b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		g.b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Pointer:
		switch {
		case v.IsNil():
			g.b.WriteString("nil")
		case t.Elem().Kind() == reflect.Bool:
			if v.Elem().Bool() {
				g.b.WriteString("&builtinTrue")
			} else {
				g.b.WriteString("&builtinFalse")
			}
		case t.Elem() == patternType:
			p := v.Elem()
			if !elided {
				g.b.WriteString("&pattern")
			}
			fmt.Fprintf(&g.b, "{src: %s, captures: %t, minLen: %d}", strconv.Quote(p.FieldByName("src").String()), p.FieldByName("captures").Bool(), p.FieldByName("minLen").Int())
		case t.Elem().Kind() == reflect.Struct:
			if !elided {
				g.b.WriteString("&")
			}
			return g.value(v.Elem(), elided)
		case t.Elem().Kind() == reflect.Slice && v.Elem().Len() == 0:
			// A slot the translations fill when first needed (phrase.tr,
			// alts.tr): empty when compiled, one of its own per word. An
			// element of a zero array rather than new(T): new is a call,
			// run at start, that writes the pointer into the rules' data.
			g.b.WriteString(g.slot(g.typeName(t.Elem())))
		default:
			return fmt.Errorf("cannot write a %s as static data", t)
		}
	case reflect.Struct:
		if !elided {
			g.b.WriteString(g.typeName(t))
		}
		g.b.WriteString("{")
		// A struct of a few plain values goes on one line.
		sep, n := "\n", 0
		for i := 0; i < t.NumField(); i++ {
			if !isEmpty(v.Field(i)) {
				n++
				if !isBasic(t.Field(i).Type) {
					n = 99
				}
			}
		}
		if n <= 4 {
			sep = " "
		}
		first := true
		for i := 0; i < t.NumField(); i++ {
			f, fv := t.Field(i), v.Field(i)
			if isEmpty(fv) {
				continue
			}
			if !f.IsExported() && t.PkgPath() != rulesPkg {
				return fmt.Errorf("%s.%s: an unexported field of another package cannot be written", t, f.Name)
			}
			if sep == "\n" || !first {
				g.b.WriteString(sep)
			}
			first = false
			g.b.WriteString(f.Name + ": ")
			if err := g.value(fv, false); err != nil {
				return fmt.Errorf("%s.%s: %v", t.Name(), f.Name, err)
			}
			if sep == "\n" {
				g.b.WriteString(",")
			} else {
				g.b.WriteString(",")
			}
		}
		if sep == "\n" {
			g.b.WriteString("\n")
		}
		g.b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			g.b.WriteString("nil")
			return nil
		}
		if !elided {
			g.b.WriteString(g.typeName(t))
		}
		g.b.WriteString("{")
		keyed := t.Kind() == reflect.Array
		// Plain values go on one line.
		sep := "\n"
		if isBasic(t.Elem()) {
			sep = ""
		}
		// Long runs of plain values (the automaton's tables) go
		// wrapLen to a line, so that a change to the rules changes
		// lines, not one line of a hundred kilobytes.
		wrap := isBasic(t.Elem()) && v.Len() > wrapLen
		if wrap {
			sep = "\n"
		}
		written := 0
		for i := 0; i < v.Len(); i++ {
			if keyed && isEmpty(v.Index(i)) {
				continue
			}
			if wrap && written%wrapLen == 0 {
				sep = "\n"
			}
			written++
			g.b.WriteString(sep)
			if sep == "" || wrap {
				sep = " "
			}
			if keyed {
				fmt.Fprintf(&g.b, "%d: ", i)
			}
			if err := g.value(v.Index(i), true); err != nil {
				return err
			}
			g.b.WriteString(",")
		}
		if sep == "\n" || wrap {
			g.b.WriteString("\n")
		}
		g.b.WriteString("}")
	case reflect.Map:
		// A map is made at start (Go has no static maps): its values are
		// pointers into an array of static data, when they are pointers
		// to structs, so that making it copies none of them.
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		var side *goWriter
		var sideName string
		if t.Elem().Kind() == reflect.Pointer && t.Elem().Elem().Kind() == reflect.Struct {
			if g.slots == nil {
				g.slots = &slotArrays{types: map[string]int{}}
			}
			side = &goWriter{imports: g.imports, slots: g.slots}
			sideName = fmt.Sprintf("builtinData%d", len(g.side)+1)
			fmt.Fprintf(&side.b, "[...]%s{", side.typeName(t.Elem().Elem()))
		}
		if !elided {
			g.b.WriteString(g.typeName(t))
		}
		g.b.WriteString("{")
		for i, k := range keys {
			g.b.WriteString("\n")
			if err := g.value(k, true); err != nil {
				return err
			}
			g.b.WriteString(": ")
			if side != nil {
				fmt.Fprintf(&g.b, "&%s[%d]", sideName, i)
				side.b.WriteString("\n")
				if err := side.value(v.MapIndex(k).Elem(), true); err != nil {
					return err
				}
				side.b.WriteString(",")
			} else if err := g.value(v.MapIndex(k), true); err != nil {
				return err
			}
			g.b.WriteString(",")
		}
		g.b.WriteString("\n}")
		if side != nil {
			side.b.WriteString("\n}")
			g.imports = side.imports
			g.side = append(g.side, side.side...)
			g.side = append(g.side, sideVar{sideName, side.b.String()})
		}
	default:
		return fmt.Errorf("cannot write a %s as static data", t)
	}
	return nil
}

// wrapLen is the number of plain values written to a line in a long
// slice or array.
const wrapLen = 20

// isBasic reports whether t is written as a plain value.
func isBasic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// isEmpty reports whether v is left out of a literal: zero, or a slice or
// map without elements.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Pointer:
		return v.IsNil()
	case reflect.Struct:
		if v.Type() == patternType {
			return false
		}
		for i := 0; i < v.NumField(); i++ {
			if !isEmpty(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if !isEmpty(v.Index(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}
