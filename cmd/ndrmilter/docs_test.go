package main

// The generated documentation: the man pages ndrmilter(8) and
// ndrmilter.yaml(5) and the bash and zsh completions, made from the command
// table, the commands' flag sets, the exit status table and the documented
// configuration file (deploy/ndrmilter.yaml). TestGeneratedDocs compares
// the committed files with what this code makes now, so that they cannot
// drift from the binary; "go generate ./cmd/ndrmilter" (make man) rewrites
// them.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// generatedDocs are the files made here, by path from this directory.
func generatedDocs(t *testing.T) map[string][]byte {
	t.Helper()
	conf, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndrmilter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseDocumentedConfig(conf)
	if err != nil {
		t.Fatalf("deploy/ndrmilter.yaml: %v", err)
	}
	dir := filepath.Join("..", "..", "doc")
	return map[string][]byte{
		filepath.Join(dir, "man", "ndrmilter.8"):           manPage(),
		filepath.Join(dir, "man", "ndrmilter.yaml.5"):      configManPage(doc),
		filepath.Join(dir, "completion", "ndrmilter.bash"): bashCompletion(),
		filepath.Join(dir, "completion", "_ndrmilter"):     zshCompletion(),
	}
}

func TestGeneratedDocs(t *testing.T) {
	for path, want := range generatedDocs(t) {
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go generate ./cmd/ndrmilter)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			line := 0
			for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
				line++
			}
			var g, w string
			if line < len(gl) {
				g = gl[line]
			}
			if line < len(wl) {
				w = wl[line]
			}
			t.Errorf("%s is out of date at line %d (run go generate ./cmd/ndrmilter):\n have: %s\n want: %s", path, line+1, g, w)
		}
	}
}

// ---- The documented configuration ----

// documentedKey is one key of deploy/ndrmilter.yaml with its comment.
type documentedKey struct {
	name    string
	value   string   // as the shipped file sets it; a list as [a, b]
	comment []string // the comment lines above it, without "# "
}

// documentedConfig is deploy/ndrmilter.yaml read as documentation.
type documentedConfig struct {
	header []string // the comment that opens the file
	keys   []documentedKey
}

var topLevelKey = regexp.MustCompile(`^([a-z_]+):\s*(.*)$`)

// parseDocumentedConfig reads the configuration file's comments: the
// opening block (up to the first empty line), then for each top-level key
// the comment block right above it.
func parseDocumentedConfig(data []byte) (documentedConfig, error) {
	var doc documentedConfig
	var block []string
	inHeader := true
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "#"):
			block = append(block, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
		case strings.TrimSpace(line) == "":
			if inHeader && block != nil {
				doc.header, block, inHeader = block, nil, false
			}
			block = nil
		default:
			m := topLevelKey.FindStringSubmatch(line)
			if m == nil {
				return doc, fmt.Errorf("line %d: expected a comment, an empty line or a top-level key: %q", i+1, line)
			}
			if len(block) == 0 {
				return doc, fmt.Errorf("line %d: key %s has no comment above it", i+1, m[1])
			}
			value := m[2]
			var items []string
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  - ") {
				i++
				items = append(items, strings.TrimPrefix(lines[i], "  - "))
			}
			if items != nil {
				value = "[" + strings.Join(items, ", ") + "]"
			}
			doc.keys = append(doc.keys, documentedKey{name: m[1], value: value, comment: block})
			block, inHeader = nil, false
		}
	}
	return doc, nil
}

// Every key serve reads is documented in the shipped file, and every key the
// file documents is one serve reads.
func TestConfigFileDocumentsEveryKey(t *testing.T) {
	conf, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndrmilter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseDocumentedConfig(conf)
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, k := range doc.keys {
		documented = append(documented, k.name)
	}
	sort.Strings(documented)
	if strings.Join(documented, " ") != strings.Join(configKeys(), " ") {
		t.Fatalf("deploy/ndrmilter.yaml documents\n  %v\nserve reads\n  %v", documented, configKeys())
	}
	// The flag each comment names is the flag that sets the key.
	for _, k := range doc.keys {
		for _, line := range k.comment {
			if f, ok := strings.CutPrefix(line, "Flag: --"); ok {
				f, _, _ = strings.Cut(f, " ")
				if flagKeys[f] != k.name {
					t.Errorf("%s: the comment names --%s, which sets %q", k.name, f, flagKeys[f])
				}
			}
		}
	}
}

// ---- roff ----

// roffText escapes text for a man page line: backslashes, and a leading
// dot or quote that would read as a request.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	// Minus signs, not hyphens: options and paths must survive copy and paste.
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffOption writes a flag name with minus signs that stay minus signs.
func roffOption(name string) string { return `\-\-` + strings.ReplaceAll(name, "-", `\-`) }

// roffParagraphs writes comment lines as man page paragraphs: an empty line
// separates paragraphs, and more deeply indented lines (tables, examples)
// are kept as they are.
func roffParagraphs(b *strings.Builder, lines []string) {
	pre := false
	for _, line := range lines {
		indented := strings.HasPrefix(line, "  ")
		switch {
		case strings.TrimSpace(line) == "":
			if pre {
				b.WriteString(".fi\n")
				pre = false
			}
			b.WriteString(".PP\n")
			continue
		case indented && !pre:
			b.WriteString(".nf\n")
			pre = true
		case !indented && pre:
			b.WriteString(".fi\n")
			pre = false
		}
		if f, ok := strings.CutPrefix(line, "Flag: --"); ok {
			name, rest, _ := strings.Cut(f, " ")
			line = ".br\n" + `Flag: \fB` + roffOption(name) + `\fR`
			if rest != "" {
				line += " " + roffText(rest)
			}
			b.WriteString(line + "\n")
			continue
		}
		b.WriteString(roffText(line) + "\n")
	}
	if pre {
		b.WriteString(".fi\n")
	}
}

const manHeader = `.\" Generated by "go generate ./cmd/ndrmilter" from the definitions of the
.\" commands, their flags and the configuration file: do not edit.
`

// manLayout turns off hyphenation and justification: option names, paths
// and metric names are read, and copied, whole.
const manLayout = ".nh\n.ad l\n"

// manPage is ndrmilter(8).
func manPage() []byte {
	var b strings.Builder
	b.WriteString(manHeader)
	b.WriteString(`.TH NDRMILTER 8 "" "ndrmilter" "System Administration"` + "\n" + manLayout)
	b.WriteString(".SH NAME\nndrmilter \\- explain bounce messages and catch backscatter, as a Postfix milter and on the command line\n")
	b.WriteString(".SH SYNOPSIS\n")
	for i, sc := range commands {
		if i > 0 {
			b.WriteString(".br\n")
		}
		fmt.Fprintf(&b, ".B ndrmilter %s\n", sc.name)
		if sc.synopsis != "" {
			b.WriteString(roffSynopsis(sc.synopsis) + "\n")
		}
	}
	b.WriteString(`.SH DESCRIPTION
.B ndrmilter
reads bounce messages (non-delivery reports) and says, in plain English, what happened,
to which recipient, where, who must fix it and how.
As a Postfix milter
.RB ( "ndrmilter serve" )
it records every message that leaves the domain in a ledger, adds
.BR X\-NDR\-Explanation ,
.BR X\-NDR\-Owner ,
.B X\-NDR\-Status
and
.B X\-NDR\-Backscatter
headers to the bounces it receives, and tags, holds, rejects or discards backscatter
(bounces for mail that was never sent from here) as configured.
On any internal error the message passes unchanged.
.PP
Flags may come before or after the arguments; a flag is written
.B \-\-name
or
.BR \-name ,
its value after a space or an equals sign;
.B \-\-
ends the flags.
.B \-\-help
(or
.BR \-h )
after any command prints that command's usage and exits 0.
.SH COMMANDS
`)
	for _, sc := range commands {
		fmt.Fprintf(&b, ".SS \"%s\"\n", sc.name)
		b.WriteString(roffText(sc.about) + "\n")
		if sc.usage != "" {
			b.WriteString(".PP\n.nf\n")
			for _, line := range strings.Split(strings.TrimRight(sc.usage, "\n"), "\n") {
				b.WriteString(roffText(line) + "\n")
			}
			b.WriteString(".fi\n")
		}
		if sc.flags != nil {
			for _, fd := range flagDocs(sc.flags()) {
				b.WriteString(".TP\n")
				if fd.arg != "" {
					fmt.Fprintf(&b, ".BI %s \" %s\"\n", roffOption(fd.name), fd.arg)
				} else {
					fmt.Fprintf(&b, ".B %s\n", roffOption(fd.name))
				}
				text := fd.usage
				if fd.def != "" {
					text += " (default " + fd.def + ")"
				}
				b.WriteString(roffText(text) + "\n")
			}
		}
		b.WriteString(".PP\nExit status:\n.RS\n")
		for _, ec := range sc.exits {
			fmt.Fprintf(&b, ".TP 4\n.B %d\n%s\n", ec.code, roffText(ec.meaning))
		}
		b.WriteString(".RE\n")
	}
	b.WriteString(".SH \"EXIT STATUS\"\nEvery command follows one table; each command above says what each status means for it.\n")
	for _, ec := range exitCodes {
		fmt.Fprintf(&b, ".TP 4\n.B %d\n%s\n", ec.code, roffText(ec.meaning))
	}
	b.WriteString(`.SH LOGGING
.B ndrmilter serve
writes one JSON object a line on standard error: one per classified bounce and one per recorded
outbound message, at the level set by
.BR log_level .
When standard error is the systemd journal (systemd sets
.B JOURNAL_STREAM
to its device and inode numbers, and they match), each line starts with its
.BR sd\-daemon (3)
priority:
.B <3>
for errors,
.B <4>
for warnings,
.B <6>
for information and
.B <7>
for debugging, so that
.B journalctl \-p err \-u ndrmilter
shows the errors.
A start-up error is one sentence on standard error (at priority 3 on the journal) and an exit status
of 3, 4 or 5; it is not logged as JSON.
.SH SIGNALS
.TP
.B SIGHUP
re-reads the configuration file and the rules files, after checking them as
.B ndrmilter config check
does; a rejected file leaves the running configuration in force and is logged at priority 3.
The metrics
.B ndrmilter_config_last_reload_success
(1 or 0) and
.B ndrmilter_config_last_reload_success_timestamp_seconds
tell which happened.
.BR listen ,
.BR socket_mode ,
.BR data ,
.BR ledger ,
.B retention
and the
.B http_*
keys change only on restart.
.TP
.BR SIGTERM ", " SIGINT
stop accepting connections, wait up to
.B drain_timeout
for open sessions, and exit 0.
.SH FILES
.TP
.I /etc/ndrmilter/ndrmilter.yaml
the configuration file, see
.BR ndrmilter.yaml (5).
.TP
.I /var/lib/ndrmilter/ledger.db
the embedded (bbolt) ledger; one process at a time holds it.
.TP
.I /lib/systemd/system/ndrmilter.service
the systemd unit: it runs
.B ndrmilter serve \-\-config /etc/ndrmilter/ndrmilter.yaml
and checks the file before each reload.
.TP
.I /usr/share/doc/ndrmilter/
the Postfix settings (postfix/main.cf, postfix/master.cf) and a Sieve script (ndr.sieve).
.SH ENVIRONMENT
.TP
.B JOURNAL_STREAM
set by systemd; when it names standard error, log lines carry journald priorities.
.SH "SEE ALSO"
.BR ndrmilter.yaml (5),
.BR postconf (5),
.BR systemd.service (5),
.BR journalctl (1)
`)
	return []byte(b.String())
}

// roffSynopsis sets the options of a synopsis in bold and the rest as it is.
func roffSynopsis(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range synopsisOption.FindAllStringIndex(s, -1) {
		b.WriteString(roffText(s[last:m[0]]))
		b.WriteString(`\fB` + roffOption(strings.TrimPrefix(s[m[0]:m[1]], "--")) + `\fR`)
		last = m[1]
	}
	b.WriteString(roffText(s[last:]))
	return b.String()
}

var synopsisOption = regexp.MustCompile(`--[a-z-]+`)

// configManPage is ndrmilter.yaml(5).
func configManPage(doc documentedConfig) []byte {
	var b strings.Builder
	b.WriteString(manHeader)
	b.WriteString(`.TH NDRMILTER.YAML 5 "" "ndrmilter" "File Formats"` + "\n" + manLayout)
	b.WriteString(".SH NAME\nndrmilter.yaml \\- configuration file of ndrmilter serve\n")
	b.WriteString(".SH SYNOPSIS\n.I /etc/ndrmilter/ndrmilter.yaml\n")
	b.WriteString(".SH DESCRIPTION\n")
	roffParagraphs(&b, doc.header)
	b.WriteString(`.PP
.B ndrmilter config check \-\-config
.I FILE
checks a file as
.B ndrmilter serve
would load it and prints
.IB FILE : LINE :
what is wrong, for each problem; unknown keys are errors.
.SH KEYS
Each key below is shown with the value the shipped file gives it.
`)
	for _, k := range doc.keys {
		fmt.Fprintf(&b, ".TP\n.B \"%s: %s\"\n", k.name, strings.ReplaceAll(roffText(k.value), `"`, `\(dq`))
		roffParagraphs(&b, k.comment)
	}
	b.WriteString(".SH \"SEE ALSO\"\n.BR ndrmilter (8)\n")
	return []byte(b.String())
}

// ---- Shell completion ----

// completionFlag is a flag as the completions offer it.
type completionFlag struct {
	name, arg, usage string
}

// completionCommand is what the completions know of a command.
type completionCommand struct {
	name    string // first word
	summary string
	subs    []string // subcommand words (config check, ledger import...)
	flags   []completionFlag
	files   bool // its arguments are files
}

// ledgerFlagArgs reads the ledger flags and their argument names from the
// ledger usage ("  --data DIR  ...").
var ledgerFlagLine = regexp.MustCompile(`(?m)^\s+--([a-z][a-z-]*)(?: ([A-Z][A-Z]*))?\s`)

// completionCommands is the command table as the completions see it.
func completionCommands() []completionCommand {
	var out []completionCommand
	for _, sc := range commands {
		cc := completionCommand{name: sc.words()[0], summary: sc.summary}
		if w := sc.words(); len(w) > 1 {
			cc.subs = w[1:]
		}
		if sc.flags != nil {
			for _, fd := range flagDocs(sc.flags()) {
				cc.flags = append(cc.flags, completionFlag{fd.name, fd.arg, fd.usage})
			}
		}
		cc.files = strings.Contains(sc.synopsis, "INPUT") || strings.Contains(sc.synopsis, "FILE...")
		if sc.name == "ledger" {
			cc.subs = ledgerSubcommands()
			for _, m := range ledgerFlagLine.FindAllStringSubmatch(ledgerUsage, -1) {
				cc.flags = append(cc.flags, completionFlag{name: m[1], arg: m[2]})
			}
			sort.Slice(cc.flags, func(i, j int) bool { return cc.flags[i].name < cc.flags[j].name })
			cc.files = true // import reads log files
		}
		out = append(out, cc)
	}
	return out
}

// valueFlags groups the flags that take a value by what completes it.
func valueFlags(cmds []completionCommand) (files, dirs, free []string, choices map[string][]string) {
	seen := map[string]bool{}
	choices = map[string][]string{}
	for _, cc := range cmds {
		for _, f := range cc.flags {
			if f.arg == "" || seen[f.name] {
				continue
			}
			seen[f.name] = true
			switch {
			case flagChoices[f.name] != nil:
				choices[f.name] = flagChoices[f.name]
			case f.arg == "FILE":
				files = append(files, "--"+f.name)
			case f.arg == "DIR":
				dirs = append(dirs, "--"+f.name)
			default:
				free = append(free, "--"+f.name)
			}
		}
	}
	sort.Strings(files)
	sort.Strings(dirs)
	sort.Strings(free)
	return files, dirs, free, choices
}

const completionHeader = `# Generated by "go generate ./cmd/ndrmilter" from the commands' flag
# definitions: do not edit.
`

// bashCompletion is the bash completion script.
func bashCompletion() []byte {
	cmds := completionCommands()
	files, dirs, free, choices := valueFlags(cmds)
	var names []string
	for _, cc := range cmds {
		names = append(names, cc.name)
	}
	var b strings.Builder
	b.WriteString("# bash completion for ndrmilter(8).\n" + completionHeader)
	b.WriteString(`
_ndrmilter() {
	local cur prev cmd sub i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	# The command and its subcommand: the first words that are neither a
	# flag nor the value of one.
	cmd= sub=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		` + strings.Join(append(append(append([]string{}, files...), append(dirs, free...)...), choiceNames(choices)...), "|") + `) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${COMP_WORDS[i]}
			elif [[ -z $sub ]]; then
				sub=${COMP_WORDS[i]}
			fi
			;;
		esac
	done
	case $prev in
`)
	if len(files) > 0 {
		fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\treturn ;;\n", strings.Join(files, "|"))
	}
	if len(dirs) > 0 {
		fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n\t\treturn ;;\n", strings.Join(dirs, "|"))
	}
	for _, name := range choiceNames(choices) {
		fmt.Fprintf(&b, "\t%s)\n\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n\t\treturn ;;\n", name, strings.Join(choices[strings.TrimPrefix(name, "--")], " "))
	}
	if len(free) > 0 {
		fmt.Fprintf(&b, "\t%s)\n\t\treturn ;;\n", strings.Join(free, "|"))
	}
	b.WriteString("\tesac\n\tcase $cmd in\n")
	fmt.Fprintf(&b, "\t\"\")\n\t\tCOMPREPLY=($(compgen -W \"%s --help --version\" -- \"$cur\"))\n\t\t;;\n", strings.Join(names, " "))
	for _, cc := range cmds {
		flags := []string{"--help"}
		for _, f := range cc.flags {
			flags = append(flags, "--"+f.name)
		}
		fmt.Fprintf(&b, "\t%s)\n", cc.name)
		indent := "\t\t"
		if cc.subs != nil {
			fmt.Fprintf(&b, "\t\tif [[ -z $sub ]]; then\n\t\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n", strings.Join(cc.subs, " "))
		}
		if cc.files {
			fmt.Fprintf(&b, "%sif [[ $cur == -* ]]; then\n%s\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n%selse\n%s\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n%sfi\n",
				indent, indent, strings.Join(flags, " "), indent, indent, indent)
		} else {
			fmt.Fprintf(&b, "%sCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n", indent, strings.Join(flags, " "))
		}
		b.WriteString("\t\t;;\n")
	}
	b.WriteString("\tesac\n}\ncomplete -o filenames -F _ndrmilter ndrmilter\n")
	return []byte(b.String())
}

func choiceNames(choices map[string][]string) []string {
	var out []string
	for name := range choices {
		out = append(out, "--"+name)
	}
	sort.Strings(out)
	return out
}

// zshQuote escapes a description for an _arguments or _describe spec in
// single quotes.
func zshQuote(s string) string {
	r := strings.NewReplacer(`'`, `'\''`, `[`, `\[`, `]`, `\]`, "`", "")
	return r.Replace(s)
}

// zshCompletion is the zsh completion function.
func zshCompletion() []byte {
	cmds := completionCommands()
	var b strings.Builder
	b.WriteString("#compdef ndrmilter\n# zsh completion for ndrmilter(8).\n" + completionHeader)
	b.WriteString(`
_ndrmilter() {
	local curcontext=$curcontext state line
	local -a cmds args
	_arguments -C \
		'(- *)--help[show the usage]' \
		'(- *)--version[print the version]' \
		'1:command:->command' \
		'*::argument:->argument' && return
	case $state in
	command)
		cmds=(
`)
	for _, cc := range cmds {
		fmt.Fprintf(&b, "\t\t\t'%s:%s'\n", cc.name, zshQuote(cc.summary))
	}
	b.WriteString("\t\t)\n\t\t_describe -t commands 'ndrmilter command' cmds\n\t\t;;\n\targument)\n\t\tcase $line[1] in\n")
	for _, cc := range cmds {
		fmt.Fprintf(&b, "\t\t%s)\n\t\t\targs=(\n\t\t\t\t'--help[show the usage]'\n", cc.name)
		for _, f := range cc.flags {
			desc := zshQuote(f.usage)
			if desc == "" {
				desc = strings.ToLower(f.arg)
			}
			switch {
			case f.arg == "":
				fmt.Fprintf(&b, "\t\t\t\t'--%s[%s]'\n", f.name, desc)
			case flagChoices[f.name] != nil:
				fmt.Fprintf(&b, "\t\t\t\t'*--%s=[%s]:%s:(%s)'\n", f.name, desc, strings.ToLower(f.arg), strings.Join(flagChoices[f.name], " "))
			case f.arg == "FILE":
				fmt.Fprintf(&b, "\t\t\t\t'*--%s=[%s]:file:_files'\n", f.name, desc)
			case f.arg == "DIR":
				fmt.Fprintf(&b, "\t\t\t\t'*--%s=[%s]:directory:_files -/'\n", f.name, desc)
			default:
				fmt.Fprintf(&b, "\t\t\t\t'*--%s=[%s]:%s: '\n", f.name, desc, strings.ToLower(f.arg))
			}
		}
		if cc.subs != nil {
			fmt.Fprintf(&b, "\t\t\t\t'1:subcommand:(%s)'\n", strings.Join(cc.subs, " "))
		}
		if cc.files {
			b.WriteString("\t\t\t\t'*:file:_files'\n")
		}
		b.WriteString("\t\t\t)\n\t\t\t_arguments -S $args\n\t\t\t;;\n")
	}
	b.WriteString("\t\tesac\n\t\t;;\n\tesac\n}\n\n_ndrmilter \"$@\"\n")
	return []byte(b.String())
}

// ---- The completions work ----

// bashComplete runs the bash completion for a command line whose last word
// is being completed, and returns the candidates.
func bashComplete(t *testing.T, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	prog := fmt.Sprintf("source %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_ndrmilter\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n",
		script, strings.Join(quoted, " "), len(words)-1)
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completion of %q: %v", words, err)
	}
	return strings.Fields(string(out))
}

func TestBashCompletionOffersTheCommandsAndFlags(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "doc", "completion", "ndrmilter.bash"))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bounce.eml"), nil, 0o600)
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"ndrmilter", ""}, "explain code serve filter config ledger version --help --version"},
		{[]string{"ndrmilter", "ex"}, "explain"},
		{[]string{"ndrmilter", "explain", "--"}, "--help --json --lang --rules --why"},
		{[]string{"ndrmilter", "explain", filepath.Join(dir, "bou")}, filepath.Join(dir, "bounce.eml")},
		{[]string{"ndrmilter", "config", ""}, "check"},
		{[]string{"ndrmilter", "config", "check", "--c"}, "--config"},
		{[]string{"ndrmilter", "serve", "--backscatter-action", "re"}, "reject"},
		{[]string{"ndrmilter", "serve", "--log-level", ""}, "debug info warn error"},
		{[]string{"ndrmilter", "serve", "--config", filepath.Join(dir, "b")}, filepath.Join(dir, "bounce.eml")},
		{[]string{"ndrmilter", "serve", "--config", "x.yaml", "--sub"}, "--subject-tag"},
		{[]string{"ndrmilter", "ledger", ""}, strings.Join(ledgerSubcommands(), " ")},
		{[]string{"ndrmilter", "ledger", "lookup", "--dr"}, "--dry-run"},
		{[]string{"ndrmilter", "code", "--j"}, "--json"},
	} {
		if got := strings.Join(bashComplete(t, script, tc.words...), " "); got != tc.want {
			t.Errorf("completing %q: %q, want %q", tc.words, got, tc.want)
		}
	}
	// Every flag of every command is offered.
	for _, sc := range commands {
		if sc.flags == nil {
			continue
		}
		words := append([]string{"ndrmilter"}, sc.words()...)
		got := " " + strings.Join(bashComplete(t, script, append(words, "--")...), " ") + " "
		for _, fd := range flagDocs(sc.flags()) {
			if !strings.Contains(got, " --"+fd.name+" ") {
				t.Errorf("ndrmilter %s --<TAB> does not offer --%s: %s", sc.name, fd.name, got)
			}
		}
	}
}

func TestZshCompletionParses(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh (Debian package zsh) to check the zsh completion with")
	}
	script := filepath.Join("..", "..", "doc", "completion", "_ndrmilter")
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n %s: %v\n%s", script, err, out)
	}
	// Loaded by compinit from a directory in fpath, as a package installs it.
	prog := fmt.Sprintf("fpath=(%s $fpath); autoload -Uz compinit; compinit -u -d %s; print -r -- ${_comps[ndrmilter]}",
		filepath.Dir(script), filepath.Join(t.TempDir(), "zcompdump"))
	out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "_ndrmilter" {
		t.Fatalf("compinit does not bind _ndrmilter to ndrmilter: %v %q", err, out)
	}
}

// zshCompleteScript types each command line followed by a tab into an
// interactive zsh (zsh/zpty) with the completion directory in fpath, and
// prints what the line became and what was listed.
const zshCompleteScript = `zmodload zsh/zpty
try() {
  zpty z 'TERM=dumb zsh -f -i'
  zpty -w z 'PROMPT="P> "; fpath=(%s $fpath); autoload -Uz compinit; compinit -u -d %s; setopt nobeep; echo READY'
  local out all chunk
  zpty -r z out '*READY*P> '
  zpty -w -n z "$1"$'\t'
  sleep 2
  while zpty -r -t z chunk; do all+=$chunk; done
  print -r -- "[$1] -> $(print -r -- "$all" | tr -d '\r' | tr '\n' '|')"
  zpty -d z
}
for line in "$@"; do try "$line"; done
`

func TestZshCompletionCompletes(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil || testing.Short() {
		t.Skip("needs zsh (Debian package zsh) and a few seconds")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "doc", "completion"))
	script := fmt.Sprintf(zshCompleteScript, dir, filepath.Join(t.TempDir(), "zcompdump"))
	cases := []struct{ line, want string }{
		{"ndrmilter con", "ndrmilter config "},
		{"ndrmilter ledger ", "import  lookup  stats"},
		{"ndrmilter serve --backscatter-action=re", "ndrmilter serve --backscatter-action=reject "},
		{"ndrmilter explain --j", "ndrmilter explain --json "},
	}
	args := []string{"-f", "-c", script, "zsh"}
	for _, c := range cases {
		args = append(args, c.line)
	}
	out, err := exec.Command(zsh, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	for _, c := range cases {
		var got string
		for _, l := range strings.Split(string(out), "\n") {
			if r, ok := strings.CutPrefix(l, "["+c.line+"] -> "); ok {
				got = r
			}
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("zsh completion of %q: %q, want it to contain %q", c.line, got, c.want)
		}
	}
}

// Every flag of every command appears in both completions and the man
// page: the generated files are made from the flag sets, and this checks
// the generator too.
func TestDocsNameEveryFlag(t *testing.T) {
	docs := generatedDocs(t)
	for _, sc := range commands {
		if sc.flags == nil {
			continue
		}
		sc.flags().VisitAll(func(f *flag.Flag) {
			for path, content := range docs {
				want := "--" + f.Name
				if strings.HasSuffix(path, ".8") {
					want = roffOption(f.Name)
				}
				if strings.HasSuffix(path, ".yaml.5") {
					continue
				}
				if !bytes.Contains(content, []byte(want)) {
					t.Errorf("%s does not name %s's flag --%s", path, sc.name, f.Name)
				}
			}
		})
	}
}
