package main

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// configSource says where each value of a configuration came from: a line
// of the file or a flag. Problems found in a value are reported there.
type configSource struct {
	file  string            // the configuration file; "" without one
	keys  map[string]keyPos // YAML key -> where the file sets it
	flags map[string]string // YAML key -> the flag that set it ("--listen")
}

// keyPos is where a key's value stands in the file.
type keyPos struct {
	line  int   // line of the value
	items []int // lines of a list's items
}

// pos is where the value of key (its item-th list item when item >= 0)
// came from: "flag --listen", "FILE:LINE", or "" for a default.
func (s *configSource) pos(key string, item int) string {
	if s == nil {
		return ""
	}
	if f, ok := s.flags[key]; ok {
		return "flag " + f
	}
	p, ok := s.keys[key]
	if !ok {
		return ""
	}
	line := p.line
	if item >= 0 && item < len(p.items) {
		line = p.items[item]
	}
	return fmt.Sprintf("%s:%d", s.file, line)
}

// configProblem is one thing wrong in a configuration, where it is.
type configProblem struct {
	pos string // "FILE:LINE", "flag --x", or "" (no better place)
	msg string // what is wrong, starting with the key it concerns
}

func (p configProblem) Error() string {
	if p.pos == "" {
		return p.msg
	}
	return p.pos + ": " + p.msg
}

// configProblems is every problem found in a configuration, in file order.
type configProblems []configProblem

func (ps configProblems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// configFields maps each YAML key of serveConfig to its field index. It is
// read from serveConfig's tags on first use: only the commands that read a
// configuration need it (issue 14: start-up).
var configFields = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[serveConfig]()
	for i := 0; i < t.NumField(); i++ {
		if key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); key != "" && key != "-" {
			m[key] = i
		}
	}
	return m
})

// configKeys is every key of the configuration file, sorted.
func configKeys() []string {
	fields := configFields()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// yamlLineError is how go.yaml.in/yaml/v3 words a syntax error.
// It is compiled on first use, as yamlDecodeError: most commands read no
// configuration (issue 14: start-up).
var yamlLineError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// yamlDecodeError is how go.yaml.in/yaml/v3 words a type error.
var yamlDecodeError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line \d+: (.*)`) })

// decodeConfig reads the YAML document data over c, key by key, so that
// every problem is reported with its line: syntax errors, unknown or
// repeated keys, and values of the wrong type. It records in src where each
// key stands.
func decodeConfig(src *configSource, data []byte, c *serveConfig) configProblems {
	var doc yaml.Node
	// The decoder's line is exact for most syntax errors; for an unclosed
	// flow list or mapping it names the line before the one that opens it.
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineError().FindStringSubmatch(err.Error()); m != nil {
			return configProblems{{pos: src.file + ":" + m[1], msg: "not valid YAML: " + m[2]}}
		}
		return configProblems{{pos: src.file, msg: "not valid YAML: " + msg}}
	}
	if len(doc.Content) == 0 {
		return nil // an empty file: the defaults
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	at := func(line int) string { return fmt.Sprintf("%s:%d", src.file, line) }
	if root.Kind != yaml.MappingNode {
		return configProblems{{pos: at(root.Line), msg: "expected \"key: value\" lines (a YAML mapping), found " + nodeKind(root)}}
	}
	var probs configProblems
	rv := reflect.ValueOf(c).Elem()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := k.Value
		if canonical, ok := configAliases[key]; ok {
			key = canonical
		}
		if prev, dup := src.keys[key]; dup {
			probs = append(probs, configProblem{at(k.Line), fmt.Sprintf("%s: given twice (first at line %d)", key, prev.line)})
			continue
		}
		idx, ok := configFields()[key]
		if !ok {
			msg := fmt.Sprintf("unknown key %q", key)
			if near := nearestKey(key); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			probs = append(probs, configProblem{at(k.Line), msg})
			continue
		}
		pos := keyPos{line: v.Line}
		if v.Kind == yaml.SequenceNode {
			for _, it := range v.Content {
				pos.items = append(pos.items, it.Line)
			}
		}
		src.keys[key] = pos
		if msg := decodeValue(v, rv.Field(idx)); msg != "" {
			probs = append(probs, configProblem{at(v.Line), key + ": " + msg})
		}
	}
	return probs
}

// decodeValue decodes one value into its field and says, in words, what
// is wrong with it ("" when nothing is).
func decodeValue(v *yaml.Node, field reflect.Value) string {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	isNull := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
	switch {
	case field.Type() == reflect.TypeFor[duration]():
		if isNull {
			field.SetInt(0)
			return ""
		}
	case field.Kind() == reflect.Slice:
		if isNull {
			field.Set(reflect.Zero(field.Type()))
			return ""
		}
		if v.Kind != yaml.SequenceNode {
			return fmt.Sprintf("expected a list, such as [a, b] or one \"- item\" per line, found %s", nodeKind(v))
		}
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return fmt.Sprintf("line %d: expected a single value in the list, found %s", it.Line, nodeKind(it))
			}
		}
	default:
		if v.Kind != yaml.ScalarNode {
			return fmt.Sprintf("expected a single value, found %s", nodeKind(v))
		}
	}
	if err := v.Decode(field.Addr().Interface()); err != nil {
		switch field.Kind() {
		case reflect.Int:
			return fmt.Sprintf("%q: expected a whole number", v.Value)
		case reflect.Bool:
			return fmt.Sprintf("%q: expected true or false", v.Value)
		}
		msg := err.Error()
		if m := yamlDecodeError().FindStringSubmatch(msg); m != nil {
			msg = m[1]
		}
		return strings.TrimPrefix(msg, "yaml: ")
	}
	return ""
}

// nodeKind names a YAML node's kind for an error message.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping (key: value)"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "something else"
}

// nearestKey is the key of the configuration closest to a misspelt one
// (at most two edits away, or the same but for - and _), or "".
func nearestKey(key string) string {
	best, bestD := "", 3
	for _, k := range configKeys() {
		if d := editDistance(strings.ReplaceAll(key, "-", "_"), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
