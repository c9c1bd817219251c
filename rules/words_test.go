package rules

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// jargon are words that do not belong in what the person who sent the
// message reads (issue 8, item 6): SMTP commands, record types, protocol
// and standard names, status codes. They belong in the details for admins.
var jargon = []*regexp.Regexp{
	regexp.MustCompile(`\bRCPT\b`), regexp.MustCompile(`\bMAIL FROM\b`), regexp.MustCompile(`\bDATA\b`),
	regexp.MustCompile(`\bBDAT\b`), regexp.MustCompile(`\bHELO\b`), regexp.MustCompile(`\bEHLO\b`),
	regexp.MustCompile(`\bSTARTTLS\b`), regexp.MustCompile(`\bMX\b`), regexp.MustCompile(`\bPTR\b`),
	regexp.MustCompile(`\bSMTP\b`), regexp.MustCompile(`\bMTA\b`), regexp.MustCompile(`\bDNSBL\b`),
	regexp.MustCompile(`\bRBL\b`), regexp.MustCompile(`\bRFC\b`), regexp.MustCompile(`\bDSN\b`),
	regexp.MustCompile(`\bNDR\b`), regexp.MustCompile(`(?i)\blegacyExchangeDN\b`),
	regexp.MustCompile(`\b[245]\.[0-9]{1,3}\.[0-9]{1,3}\b`), regexp.MustCompile(`\b[Xx]\.[0-9]+\b`),
	regexp.MustCompile(`\b[245][0-9][0-9] [0-9]`),
}

// jargonIn returns the jargon words in s, the server's words quoted in it
// ("It said: \"...\"") left out: they are the server's, shown as such.
func jargonIn(s string) []string {
	s = quotedReply.ReplaceAllString(s, `""`)
	var found []string
	for _, re := range jargon {
		if m := re.FindString(s); m != "" {
			found = append(found, m)
		}
	}
	return found
}

var quotedReply = regexp.MustCompile(`"[^"]*"`)

// literals returns the words of a template, placeholders left out.
func literals(t text) string {
	var b strings.Builder
	for _, p := range t {
		switch {
		case p.group != nil:
			b.WriteString(literals(p.group))
		case !p.isSlot:
			b.WriteString(p.literal)
		}
	}
	return b.String()
}

// eachBuiltinWords calls fn with every set of words of the built-in rules:
// the reasons', the rules', at each stage and for each fact.
func eachBuiltinWords(e *Engine, fn func(where string, w words)) {
	for name, rd := range e.reasons {
		fn("reason "+string(name), rd.words)
		for _, kw := range rd.stages {
			fn(fmt.Sprintf("reason %s stage %s", name, stageKeys[kw.key]), kw.words)
		}
		for _, kw := range rd.byFact {
			fn(fmt.Sprintf("reason %s fact %s", name, facts[kw.key]), kw.words)
		}
	}
	for _, r := range e.rules {
		fn("rule "+r.id, r.then.words)
		for _, kw := range r.then.stages {
			fn(fmt.Sprintf("rule %s stage %s", r.id, stageKeys[kw.key]), kw.words)
		}
		for _, kw := range r.then.byFact {
			fn(fmt.Sprintf("rule %s fact %s", r.id, facts[kw.key]), kw.words)
		}
	}
}

// TestBuiltinWordsHaveNoJargon reads every summary, explanation and fix of
// the built-in rules, and every fixed text, for SMTP jargon and codes.
func TestBuiltinWordsHaveNoJargon(t *testing.T) {
	e := builtin(t)
	check := func(where, s string) {
		if j := jargonIn(s); len(j) > 0 {
			t.Errorf("%s: jargon %q in %q", where, j, s)
		}
	}
	eachBuiltinWords(e, func(where string, w words) {
		check(where+" summary", w.summary.en)
		for _, a := range []alts{w.explanation, w.fix} {
			for _, alt := range a.list {
				check(where, literals(alt))
			}
		}
	})
	for k, t := range e.texts {
		check("text "+textDefs[k].name, literals(t))
	}
}

// TestBuiltinWordsStandAlone: no built-in explanation or fix relies on the
// stand-in words of older rules ("the recipient"): the last alternative of
// each needs no value, so that it reads as a whole sentence whatever the
// report names; and no built-in rule or reason is left in the older form
// (a cause glued into a sentence).
func TestBuiltinWordsStandAlone(t *testing.T) {
	e := builtin(t)
	eachBuiltinWords(e, func(where string, w words) {
		for name, a := range map[string]alts{"explanation": w.explanation, "fix": w.fix} {
			if n := len(a.list); n > 0 {
				if needs := a.list[n-1].needs() &^ (w.givenFacts()); needs != 0 {
					t.Errorf("%s %s: the last alternative needs %s", where, name, needs)
				}
			}
		}
	})
	for name, rd := range e.reasons {
		if rd.Cause != "" || rd.explanation.empty() && name != ReasonVacation {
			t.Errorf("reason %s: an explanation is needed, not a cause (%q)", name, rd.Cause)
		}
	}
	for _, r := range e.rules {
		if r.then.Cause != "" {
			t.Errorf("rule %s: cause %q: write an explanation", r.id, r.then.Cause)
		}
	}
}

// givenFacts is the fact a "facts:" entry is for: a test helper that finds
// it from the templates (every alternative of such an entry may need it).
func (w words) givenFacts() slotSet {
	var s slotSet
	for _, a := range []alts{w.explanation, w.fix} {
		if len(a.list) > 0 {
			s |= a.list[len(a.list)-1].needs() & factSlots
		}
	}
	return s
}

// TestFactsNamedByTheServer: the extractors capture what the wordings of
// the MTAs and block lists name, and the explanation or fix repeats it.
func TestFactsNamedByTheServer(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		in    Input
		facts map[Fact]string
	}{
		{Input{Action: "failed", Command: "RCPT", Diagnostic: "554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7"},
			map[Fact]string{FactList: "zen.spamhaus.org", FactIP: "203.0.113.7", FactURL: "https://www.spamhaus.org/query/ip/203.0.113.7"}},
		{Input{Action: "failed", Command: "RCPT", Diagnostic: "550 rejected because 198.51.100.9 is in a black list at b.barracudacentral.org"},
			map[Fact]string{FactList: "b.barracudacentral.org", FactIP: "198.51.100.9"}},
		{Input{Action: "failed", Diagnostic: "552 5.3.4 Message size exceeds fixed limit of 10485760 bytes"},
			map[Fact]string{FactLimit: "10 MB (10485760 bytes)"}},
		{Input{Action: "failed", Diagnostic: "message too big: read=26214400 max=15728640"},
			map[Fact]string{FactLimit: "15 MB (15728640 bytes)"}},
		{Input{Action: "failed", Status: "5.3.4", Diagnostic: "552 5.3.4 Message size (38 MB) exceeds the maximum allowed (25 MB)"},
			map[Fact]string{FactLimit: "25 MB"}},
		{Input{Action: "failed", Command: "DATA", Diagnostic: "554 5.7.0 Reject, id=28813-07 - INFECTED: Win.Test.EICAR_HDB-1"},
			map[Fact]string{FactVirus: "Win.Test.EICAR_HDB-1"}},
		{Input{Action: "failed", Command: "DATA", Diagnostic: "550 5.7.1 Message rejected, virus 'Troj/DocDl-AJT' found in attachment 'Scan 0042.docm'"},
			map[Fact]string{FactVirus: "Troj/DocDl-AJT", FactFile: "Scan 0042.docm"}},
		{Input{Action: "failed", Diagnostic: "X-Postfix; mail forwarding loop for carol@example.net"},
			map[Fact]string{FactLoop: "mail forwarding loop"}},
		{Input{Action: "failed", Diagnostic: "550 5.4.4 Unable to route: no MX record found for domain=legacy.example"},
			map[Fact]string{FactNoMX: "no MX record found", FactHost: "legacy.example"}},
		{Input{Action: "delayed", Diagnostic: "connect to mx.down.example[192.0.2.33]:25: Connection refused"},
			map[Fact]string{FactConnRefused: "Connection refused", FactHost: "mx.down.example"}},
		{Input{Action: "failed", Diagnostic: "Deferred: Connection timed out with mx.farm.example."},
			map[Fact]string{FactConnTimeout: "Connection timed out", FactHost: "mx.farm.example"}},
		{Input{Action: "failed", Status: "5.5.3", Diagnostic: "550 5.5.3 Too many recipients (max 100)"},
			map[Fact]string{FactTooManyRecipients: "Too many recipients", FactLimit: "100"}},
		{Input{Action: "failed", Command: "RCPT", Diagnostic: "550 5.7.1 Your IP 203.0.113.7 has been blocked. Please contact postmaster@trading.example to be unblocked."},
			map[Fact]string{FactIP: "203.0.113.7", FactAddress: "postmaster@trading.example"}},
	}
	for _, tc := range tests {
		v := e.Classify(tc.in)
		words := v.Explanation + " " + v.Fix
		for f, want := range tc.facts {
			if got := v.Facts.Get(f); got != want {
				t.Errorf("%q: %s = %q, want %q", tc.in.Diagnostic, f, got, want)
			}
			if !isCondition(f) && f != FactURL && f != FactIP && !strings.Contains(words, want) {
				t.Errorf("%q: the words do not name %s %q:\n%s", tc.in.Diagnostic, f, want, words)
			}
		}
	}
}

func isCondition(f Fact) bool {
	switch f {
	case FactLoop, FactNoMX, FactNoDomain, FactConnRefused, FactConnTimeout, FactTooManyRecipients:
		return true
	}
	return false
}

// TestFactsChangeTheWords: a condition the server names chooses the words
// of its own (a loop is not "send again later"; too many recipients is the
// sender's to fix), and the recipient's address is never taken for a
// contact address.
func TestFactsChangeTheWords(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Diagnostic: "Too many \"Received\" headers - suspected mail loop"})
	if !strings.Contains(v.Explanation, "loop") || strings.Contains(v.Fix, "later") || v.Owner != OwnerRecipientAdmin {
		t.Errorf("loop: %s / %q / %q", v.Owner, v.Explanation, v.Fix)
	}
	v = e.Classify(Input{Action: "failed", Diagnostic: "452 too many recipients, limit 50 recipients per message", Command: "RCPT"})
	if v.Owner != OwnerSender || !strings.Contains(v.Fix, "50") {
		t.Errorf("too many recipients: %s (rule %s) / %q", v.Owner, v.Rule, v.Fix)
	}
	v = e.Classify(Input{Action: "failed", Command: "RCPT", Recipient: "bob@example.net",
		Diagnostic: "550 5.7.1 blocked; contact bob@example.net"})
	if v.Facts.Get(FactAddress) != "" {
		t.Errorf("the recipient was taken for a contact: %q", v.Facts.Get(FactAddress))
	}
}

// TestStageChangesTheWords: the same spam verdict means the sending
// server's reputation when it comes before the message was sent, and its
// content after; a user-unknown answer at an unknown stage is read as a
// missing address, not as a filter.
func TestStageChangesTheWords(t *testing.T) {
	e := builtin(t)
	spam := "554 5.7.1 Message rejected as spam"
	content := e.Classify(Input{Action: "failed", Command: "DATA", Diagnostic: spam})
	source := e.Classify(Input{Action: "failed", Command: "MAIL", Diagnostic: spam})
	if content.Reason != ReasonSpamDetected || source.Reason != ReasonSpamDetected {
		t.Fatalf("reasons %s, %s", content.Reason, source.Reason)
	}
	if content.Owner != OwnerSender || source.Owner != OwnerSenderAdmin {
		t.Errorf("owners: after the message %s, before it %s; want sender, sender-admin", content.Owner, source.Owner)
	}
	if !strings.Contains(source.Fix, "Changing the message will not help") || strings.Contains(content.Fix, "will not help") {
		t.Errorf("fixes: after %q; before %q", content.Fix, source.Fix)
	}
	if content.Stage != StageContent || source.Stage != StageSender {
		t.Errorf("stages %q, %q", content.Stage, source.Stage)
	}
	v := e.Classify(Input{Action: "failed", Diagnostic: "550 frank@oldhost.example... User unknown"})
	if v.Owner != OwnerSender || strings.Contains(v.Explanation, "filter") {
		t.Errorf("user unknown at no known stage: %s %q", v.Owner, v.Explanation)
	}
	v = e.Classify(Input{Action: "failed", Command: "DATA", Diagnostic: "550 frank@oldhost.example... User unknown"})
	// Sisimai's filtered, but the server said the mailbox does not exist
	// (rules.yaml section 5i-a): the sender checks the address.
	if v.Owner != OwnerSender || strings.Contains(v.Explanation, "filter") || !strings.Contains(v.Explanation, "after it was sent") {
		t.Errorf("user unknown after the message was sent: %s %q", v.Owner, v.Explanation)
	}
	// A looked-up reply has no stage: Lookup's assumed command is not shown.
	if v := e.Lookup(spam); v.Stage != StageUnknown || v.Owner != OwnerSender {
		t.Errorf("looked-up spam reply: stage %q owner %s", v.Stage, v.Owner)
	}
}

// TestUnexplainedReplyIsQuoted: when no rule explains a refusal but the
// server said something readable, the explanation quotes it instead of
// saying that no reason could be understood; unreadable text is not quoted.
func TestUnexplainedReplyIsQuoted(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.0.0", Command: "RCPT", RemoteMTA: "mx.museum.example",
		Diagnostic: "550 5.0.0 This address only accepts messages sent through the web form at https://museum.example/contact"})
	want := `It said: "This address only accepts messages sent through the web form at https://museum.example/contact"`
	if !strings.Contains(v.Explanation, want) || strings.Contains(v.Explanation, "could not be understood") {
		t.Errorf("explanation %q, want it to quote the server", v.Explanation)
	}
	v = e.Classify(Input{Action: "failed", Status: "5.0.0", Diagnostic: "550 5.0.0 #"})
	if strings.Contains(v.Explanation, "It said") {
		t.Errorf("nothing readable quoted: %q", v.Explanation)
	}
}

func TestQuoteReply(t *testing.T) {
	for in, want := range map[string]string{
		"smtp; 550-5.1.1 The email account that you tried to reach does not exist. 550 5.1.1 Please try again":                     "The email account that you tried to reach does not exist. Please try again",
		"<bob@example.com>: host mx.example.com[192.0.2.1] said: 554 5.7.1 Go away, you \"spammer\" (in reply to RCPT TO command)": "Go away, you 'spammer'",
		"550 5.0.0 ok": "",
		"450 4.2.0 <eva@bakery.example>: Recipient address rejected: Greylisted, see http://postgrey.example/help": "Recipient address rejected: Greylisted, see http://postgrey.example/help",
		"550 \u5b9b\u5148\u304c\u5b58\u5728\u3057\u307e\u305b\u3093 abc":                                           "",
		// Gmail's multi-line DMARC refusal, joined: every line quoted, its
		// codes and its session identifier left out.
		"smtp; 550-5.7.26 Unauthenticated email from example.com is not accepted due to 550-5.7.26 domain's DMARC policy. Please contact the administrator of 550-5.7.26 example.com domain if this was a legitimate mail. To learn about 550-5.7.26 the DMARC initiative, go to 550 5.7.26  https://support.google.com/mail/?p=DmarcRejection d9443c01a7336-21f2a1b3c4dsi12345.201 - gsmtp": "Unauthenticated email from example.com is not accepted due to domain's DMARC policy. Please contact the administrator of example.com domain if this was a legitimate mail. To learn about the DMARC initiative, go to https://support.google.com/mail/?p=DmarcRejection",
	} {
		if got := quoteReply(in); got != want {
			t.Errorf("quoteReply(%q) = %q, want %q", in, got, want)
		}
	}
	long := quoteReply("550 " + strings.Repeat("word ", 2*maxQuote/5))
	if !strings.HasSuffix(long, "word...") || len(long) > maxQuote+3 {
		t.Errorf("long reply quoted as %q (%d bytes), want it cut at a word, at most %d", long, len(long), maxQuote+3)
	}
}

// TestWithMegabytes: a limit in bytes reads in megabytes, binary or
// decimal as the round figure is, rounded down (a message under the figure
// fits), whatever the unit's language and the digit grouping.
func TestWithMegabytes(t *testing.T) {
	for in, want := range map[string]string{"10485760": "10 MB (10485760 bytes)", "10240000 bytes": "9.7 MB (10240000 bytes)",
		"10000000": "10 MB (10000000 bytes)", "50000000 bytes": "50 MB (50000000 bytes)",
		"10.485.760 bytes": "10 MB (10485760 bytes)", "26,214,400 octets": "25 MB (26214400 bytes)",
		"25 MB": "25 MB", "100": "100", "x": "x", "1.5": "1.5"} {
		if got := withMegabytes(in); got != want {
			t.Errorf("withMegabytes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSizeUnitsReadAsTheExplanationsWriteThem: a limit stated in French
// units, in words or without a space reads in the units of the
// explanations; a number without a size unit is kept.
func TestSizeUnitsReadAsTheExplanationsWriteThem(t *testing.T) {
	for in, want := range map[string]string{"10 Mo": "10 MB", "500 Ko": "500 KB", "1 Go": "1 GB", "10485760 octets": "10485760 bytes",
		"20MB": "20 MB", "15 megabytes": "15 MB", "10 MiB": "10 MiB", "10485760 Bytes": "10485760 bytes", "100": "100",
		"100 recipients": "100 recipients"} {
		if got := sizeUnits(in); got != want {
			t.Errorf("sizeUnits(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSizeLimitStatedInEachLanguage: the size limit a refusal states is
// captured in the English wordings of the MTAs and in each language the
// notices come in, with its unit made readable; a message's own size
// stated before the limit is not taken for it.
func TestSizeLimitStatedInEachLanguage(t *testing.T) {
	e := builtin(t)
	for reply, want := range map[string]string{
		"552 5.3.4 message size 31457280 exceeds size limit 26214400 of server mx.example.com[192.0.2.1]":   "25 MB (26214400 bytes)",
		"552 5.2.3 Message size exceeds fixed maximum message size (10000000)":                              "10 MB (10000000 bytes)",
		"552 message too big: read=52428800 max=52428800":                                                   "50 MB (52428800 bytes)",
		"552 5.3.4 Message size exceeds fixed maximum message size. Limit is 36700160":                      "35 MB (36700160 bytes)",
		"554 5.3.4 Message too big for system; limit is 10MB":                                               "10 MB",
		"552-5.2.3 The message you sent is too large. Maximum is 50000000 bytes":                            "50 MB (50000000 bytes)",
		"552 5.2.3 Message exceeds the maximum size allowed by the recipient's server. Maximum size: 35 MB": "35 MB",
		"552 5.3.4 Die Nachricht ist zu groß. Die maximal zulässige Größe beträgt 10 MB.":                   "10 MB",
		"552 5.3.4 Nachricht zu groß: maximal 10.485.760 Bytes erlaubt":                                     "10 MB (10485760 bytes)",
		"552 5.3.4 Die Nachrichtengröße (12 MB) überschreitet die maximale Größe von 10 MB":                 "10 MB",
		"552 5.3.4 Message trop volumineux (taille maximale autorisée : 20 Mo)":                             "20 MB",
		"552 5.3.4 Le message dépasse la limite de 10485760 octets":                                         "10 MB (10485760 bytes)",
		"552 5.3.4 El mensaje es demasiado grande. El tamaño máximo permitido es de 15 MB":                  "15 MB",
		"552 5.3.4 Il messaggio è troppo grande: dimensione massima 25 MB":                                  "25 MB",
		"552 5.3.4 Het bericht is te groot. De maximale grootte is 20 MB":                                   "20 MB",
		"552 5.3.4 A mensagem é muito grande. O tamanho máximo permitido é 25 MB":                           "25 MB",
		"552 5.3.4 メッセージのサイズが大きすぎます。最大サイズは10MBです。":                                                          "10 MB",
		"552 5.3.4 The message size limit for this recipient is 10 MB":                                      "10 MB",
		"552 5.3.4 Message too big (max 20 MB)":                                                             "20 MB",
		"552 5.3.4 size limit exceeded (limit: 15728640)":                                                   "15 MB (15728640 bytes)",
		"552 5.3.4 Die maximal zulaessige Groesse betraegt 10 MB":                                           "10 MB",
		"552 5.3.4 Message trop volumineux : la taille maximale autorisee est de 15 Mo":                     "15 MB",
		"552 5.3.4 El tamano maximo permitido es de 15 MB":                                                  "15 MB",
		"552 5.3.4 メールサイズ(12MB)が上限10MBを超えています":                                                              "10 MB",
	} {
		rd := e.Lookup(reply)
		if got := rd.Facts.Get(FactLimit); got != want {
			t.Errorf("%q: limit %q, want %q", reply, got, want)
		}
		if rd.Reason != ReasonMesgTooBig && rd.Reason != ReasonExceedLimit {
			t.Errorf("%q: reason %s, want a size reason", reply, rd.Reason)
		}
	}
}

// TestRuleCapturesAndAlternatives: a local rule captures facts with named
// groups and chooses the first sentence whose facts it has; the file's
// placeholders, groups and keys are checked at load.
func TestRuleCapturesAndAlternatives(t *testing.T) {
	p := writeRules(t, `
rules:
  - id: our-gateway-quota
    when:
      regexp: ['quota of (?P<limit>[0-9]+ messages) per (?P<host>day|hour)']
    then:
      reason: speeding
      explanation:
        - "Your account may send {limit} per {host}."
        - "Your account sent too much."
      fix: "Wait[ until the next {host}]."
`)
	e, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Classify(Input{Action: "failed", Diagnostic: "550 over the quota of 500 Messages per DAY"})
	if v.Rule != "our-gateway-quota" || v.Explanation != "Your account may send 500 Messages per DAY." || v.Fix != "Wait until the next DAY." {
		t.Errorf("captured: %q / %q (facts %v)", v.Explanation, v.Fix, v.Facts)
	}
	if v.Matched != "quota of 500 Messages per DAY" {
		t.Errorf("matched %q, want the regexp's match in the reply's own case", v.Matched)
	}
	// {?name} tests a fact without showing it.
	p = writeRules(t, "rules:\n- id: looped\n  when: {text: [hops]}\n  then: {reason: networkerror, explanation: ['{?loop}It looped.', 'It went astray.']}\n")
	if e, err = Load(p); err != nil {
		t.Fatal(err)
	}
	if v := e.Classify(Input{Action: "failed", Diagnostic: "554 too many hops"}); v.Explanation != "It looped." {
		t.Errorf("with the loop: %q", v.Explanation)
	}
	if v := e.Classify(Input{Action: "failed", Diagnostic: "554 hops"}); v.Explanation != "It went astray." {
		t.Errorf("without the loop: %q", v.Explanation)
	}
	for _, tc := range []struct{ text, want string }{
		{"rules:\n- id: a\n  when: {regexp: ['(?P<colour>red)']}\n  then: {reason: blocked}\n", "group (?P<colour>...) is not a fact"},
		{"rules:\n- id: a\n  when: {status: [5.1.1]}\n  then: {reason: blocked, explanation: 'Listed on {list}.'}\n", "the last alternative needs {list}"},
		{"rules:\n- id: a\n  when: {status: [5.1.1]}\n  then: {reason: blocked, fix: ['On {list}.', 'Elsewhere[ {nope}].']}\n", "alternative 2: unknown placeholder {nope}"},
		{"rules:\n- id: a\n  when: {status: [5.1.1]}\n  then: {reason: blocked, stages: {greeting: {owner: sender}}}\n", `stages: "greeting" is not a stage`},
		{"rules:\n- id: a\n  when: {status: [5.1.1]}\n  then: {reason: blocked, facts: {colour: {owner: sender}}}\n", `facts: "colour" is not a fact`},
		{"rules:\n- id: a b\n  when: {status: [5.1.1]}\n  then: {reason: blocked}\n", `id "a b"`},
		{"extractors:\n- id: x\n  regexp: ['blocked']\n", "captures nothing"},
		{"extractors:\n- id: x\n  regexp: ['(?P<list>x)']\n  unit: furlongs\n", `unit "furlongs"`},
		{"rules:\n- id: a\n  when: {status: [5.1.1]}\n  then: {reason: blocked, explanation: {a: b}}\n", "expected a sentence or a list of sentences"},
	} {
		p := writeRules(t, tc.text)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestTraceListsEveryMatchInOrder: Trace gives the deciding rule first, then
// every other rule that matches, in the order they are tried, each with its
// file and line; Classify decides by the first.
func TestTraceListsEveryMatchInOrder(t *testing.T) {
	p := writeRules(t, "rules:\n  - id: local-first\n    when: {status: [5.1.1]}\n    then: {reason: suspend}\n")
	e, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Action: smtpcode.ActionFailed, Status: "5.1.1", Command: "RCPT", Diagnostic: "550 5.1.1 user unknown"}
	tr := e.Trace(in)
	if len(tr.Matches) < 3 || tr.Matches[0].Rule != "local-first" || tr.Matches[0].File != p || tr.Matches[0].Line != 2 {
		t.Fatalf("matches %+v, want the local rule first with its file and line 2", tr.Matches)
	}
	if got := e.Classify(in).Rule; got != tr.Matches[0].Rule {
		t.Errorf("Classify decided by %s, Trace's first is %s", got, tr.Matches[0].Rule)
	}
	pos := map[string]int{}
	for i, r := range e.rules {
		if _, seen := pos[r.id]; !seen {
			pos[r.id] = i
		}
	}
	for i := 1; i < len(tr.Matches); i++ {
		m := tr.Matches[i]
		if m.File != BuiltinName || m.Line == 0 || pos[m.Rule] <= pos[tr.Matches[i-1].Rule] {
			t.Errorf("match %d %+v: out of order, or without its built-in file and line", i, m)
		}
	}
}

// TestMalwareNameInBracketsAfterTheFile: a scanner's malware name in
// brackets after its words and the file is captured; a file name in
// brackets is not taken for a malware name.
func TestMalwareNameInBracketsAfterTheFile(t *testing.T) {
	e := builtin(t)
	v := e.Lookup("550 Virus found in attachment 'Faktura_2026-11.zip' (Trojan.Downloader.JS.Agent-9811)")
	if got := v.Facts.Get(FactVirus); got != "Trojan.Downloader.JS.Agent-9811" {
		t.Errorf("virus %q, want Trojan.Downloader.JS.Agent-9811", got)
	}
	if got := v.Facts.Get(FactFile); got != "Faktura_2026-11.zip" {
		t.Errorf("file %q, want Faktura_2026-11.zip", got)
	}
	v = e.Lookup("550 Virus found in attachment (invoice.zip)")
	if got := v.Facts.Get(FactVirus); got != "" {
		t.Errorf("virus %q taken from a file name in brackets", got)
	}
}

// TestPostfixMXHostNotFoundIsNoDomain: Postfix's "type=MX: Host not
// found" is the DNS's NXDOMAIN (h_errno HOST_NOT_FOUND): the domain does
// not exist, which is not a domain without MX records.
func TestPostfixMXHostNotFoundIsNoDomain(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.4.4", Recipient: "info@nodomain.example",
		Diagnostic: "Host or domain name not found. Name service error for name=nodomain.example type=MX: Host not found"})
	if v.Facts.Get(FactNoMX) != "" || v.Facts.Get(FactNoDomain) == "" {
		t.Errorf("facts %v: want no_domain and no no_mx", v.Facts)
	}
	if strings.Contains(v.Explanation, "lists no mail server") {
		t.Errorf("explanation %q says the domain has no mail server record", v.Explanation)
	}
}
