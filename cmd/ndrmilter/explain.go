package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/rules"
)

// maxExplainInput caps what explain reads of one message: more than any
// bounce needs, little enough to keep memory bounded on hostile input.
const maxExplainInput = 64 << 20

// explainOutputBuffer is the size of explain's output buffer.
const explainOutputBuffer = 64 << 10

// explainOptions are explain's flags.
type explainOptions struct {
	asJSON bool
	why    bool
	rules  stringList
	lang   languageFlag
	tag    language.Tag // lang, as offered
}

// explainFlagSet defines explain's flags.
func explainFlagSet() (*flag.FlagSet, *explainOptions) {
	o := &explainOptions{}
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per recipient record")
	fs.BoolVar(&o.why, "why", false, "print, per record, every rule that matches it in the order they are tried (the first decides), with its file and line, and where each fact came from")
	fs.Var(&o.rules, "rules", "extra rules `FILE`, loaded before the built-in rules (repeatable)")
	fs.Var(&o.lang, "lang", "write the words (summary, explanation, fix and the labels) in `LANG` (en, de, es, fr, ja; default en)")
	return fs, o
}

// explainMain is "ndrmilter explain [--json] [--rules FILE] INPUT...", on
// explicit streams.
func explainMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, o := explainFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandByName("explain").usageText()) }
	inputs, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(inputs) == 0 {
		fmt.Fprintln(stderr, "ndrmilter explain: give a message file, a directory, a Maildir, an mbox file or - (standard input)")
		return exitUsage
	}
	engine, err := rules.Load(o.rules...)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
		return exitConfig
	}
	if o.tag, err = offeredLanguage(o.lang, engine); err != nil {
		fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
		return exitUsage
	}
	// One buffer for the whole run, flushed at the end: hundreds of records
	// go out in a few dozen writes.
	out := bufio.NewWriterSize(stdout, explainOutputBuffer)
	defer out.Flush()
	status := exitOK
	if !explainInputs(inputs, stdin, out, stderr, engine, o) {
		status = exitNo
	}
	return status
}

// explainMessage writes the reading of one message; it reports false when
// nothing could be read from it.
func explainMessage(out io.Writer, m inputMessage, engine *rules.Engine, o *explainOptions, stderr io.Writer) bool {
	name := m.label()
	report, err := dsn.Parse(m.raw)
	if err != nil {
		// A best-effort report still says what could be read.
		fmt.Fprintf(stderr, "ndrmilter explain: %s: %v\n", name, err)
	}
	if report == nil {
		return false
	}
	readings := engine.ExplainIn(o.tag, report)
	if !o.asJSON {
		var why func(rules.Reading)
		if o.why {
			why = func(rd rules.Reading) { writeWhyText(terminalWriter{out}, wordsIn(o.tag), engine, report, rd) }
		}
		writeExplainText(out, wordsIn(o.tag), name, report, readings, why)
		return true
	}
	for _, rd := range readings {
		rec := explanation.NewRecord(m.file, report, rd)
		rec.Message = m.index
		if o.why {
			rec.Why = newWhyRecord(engine, report, rd)
		}
		var line []byte
		if ab, ok := out.(availableBufferWriter); ok {
			// Encoded straight into the free end of the output buffer.
			line = ab.AvailableBuffer()
		}
		if _, err := out.Write(appendRecordJSON(line, &rec)); err != nil {
			fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
			return false
		}
	}
	return true
}

// availableBufferWriter is a buffered writer that lends the free end of
// its buffer (bufio.Writer, bytes.Buffer).
type availableBufferWriter interface {
	io.Writer
	AvailableBuffer() []byte
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
