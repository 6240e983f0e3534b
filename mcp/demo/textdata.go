package demo

import (
	"strconv"
	"strings"
	"sync"
)

// Small generated texts. Like the log, the bigger ones are built once per
// process on first use.

var bigText = sync.OnceValue(func() string {
	r := newPRNG(0xb16)
	var b strings.Builder
	b.Grow(BigTextSize)
	total := strconv.Itoa(BigTextLines)
	for i := 1; i <= BigTextLines; i++ {
		start := b.Len()
		b.WriteString("line ")
		n := strconv.Itoa(i)
		b.WriteString(strings.Repeat("0", len(total)-len(n)))
		b.WriteString(n)
		b.WriteString(" of ")
		b.WriteString(total)
		b.WriteString(":")
		for {
			w := pick(r, loremWords)
			if b.Len()-start+1+len(w) > 99 {
				break
			}
			b.WriteByte(' ')
			b.WriteString(w)
		}
		for b.Len()-start < 99 {
			b.WriteByte('.')
		}
		b.WriteByte('\n')
	}
	return b.String()
})

var loremWords = strings.Fields(`moon howl wolf pack night forest river stone signal
	channel buffer page cursor token server client resource prompt tool catalog
	render spill window frame quiet amber violet teal ridge valley echo trace`)

// escapesText is hostile on purpose: colours, screen clearing, a window
// title, a hyperlink, a clipboard write, C0/C1 controls and bidi overrides.
// A client must show it without letting the terminal obey it.
const escapesText = "Terminal escape sampler: a client must display these, never obey them.\n" +
	"SGR colour:     \x1b[31mred\x1b[0m \x1b[1;32mbold green\x1b[0m \x1b[38;5;208m256-colour\x1b[0m\n" +
	"Clear screen:   [\x1b[2J\x1b[H] (ESC[2J ESC[H)\n" +
	"Cursor moves:   \x1b[5A\x1b[10Cmoved\x1b[s\x1b[u\n" +
	"Window title:   \x1b]0;pwned window title\x07\n" +
	"Hyperlink:      \x1b]8;;https://example.com/\x1b\\a link\x1b]8;;\x1b\\\n" +
	"Clipboard:      \x1b]52;c;cm0gLXJmIC8=\x07 (OSC 52 write)\n" +
	"Bell/BS/DEL:    ding\a back\bspace del\x7f\n" +
	"Overwrite:      safe text\rEVIL\n" +
	"NUL byte:       [\x00]\n" +
	"C1 CSI:         \u009b31mC1 red\u009b0m\n" +
	"Bidi override:  invoice_\u202efdp.exe (U+202E)\n" +
	"Tab:            a\tb\tc\n"

// csvText is a small, well-formed CSV table (one row per demo date).
var csvText = sync.OnceValue(func() string {
	r := newPRNG(0xc5f)
	var b strings.Builder
	b.WriteString("date,requests,errors,p50_ms,p99_ms\n")
	for _, d := range logDates {
		req := 90000 + r.intn(40000)
		b.WriteString(d)
		for _, v := range []int{req, req / (200 + r.intn(800)), 8 + r.intn(20), 180 + r.intn(900)} {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
})

// binaryData is BinarySize bytes that are certainly not UTF-8.
var binaryData = sync.OnceValue(func() []byte {
	r := newPRNG(0xb1a)
	b := make([]byte, 0, BinarySize)
	b = append(b, 0x89, 'H', 'O', 'W', 'L', 0x00, 0xff, 0xfe)
	for len(b) < BinarySize {
		b = append(b, byte(r.next()))
	}
	return b
})

const welcomeText = `Welcome to howl!

You are looking at the embedded demo server. It is safe: nothing here reads
or changes your files. Try these:

  - open demo://logs/app.log and filter it with ERROR|WARN
  - call the "slow" tool and cancel it halfway
  - run the "code_review" prompt and let completion fill in the language
  - view demo://images/moon.png
  - call "book_table" and answer the form it asks you to fill in
`

const assistantGuideText = `# Notes for the assistant

- The demo server's data is synthetic and deterministic; quote it freely.
- Prefer reading a slice of demo://logs/app.log with a pattern over reading
  all 2 MiB of it.
- The "delete_note" tool deletes nothing, but still ask the user before
  calling it: it is marked destructive.
`

const untypedText = "This resource declares no MIME type, in its listing or its contents.\n" +
	"A client has to guess: these bytes are plain UTF-8 text.\n"

// note is one generated note resource.
type note struct {
	name, title, text string
}

var noteTopics = []struct{ title, tag, body string }{
	{"Retry budgets", "reliability", "Cap retries per request and per client; a retry storm is an outage you scheduled yourself."},
	{"Cache warm-up", "performance", "After a deploy the cache is cold for about ninety seconds; warm the hot keys first."},
	{"Pagination", "api", "Follow the cursor until it is empty; never assume the first page is the whole list."},
	{"On-call handover", "process", "Write down what is on fire, what is smouldering, and what you ignored on purpose."},
	{"Log levels", "observability", "ERROR means a human should look; WARN means a human might; INFO is for the story."},
	{"Idempotency keys", "payments", "Every charge carries a key, so a retried request cannot charge twice."},
	{"Connection pools", "database", "Size the pool for the database, not for the web tier; 32 is plenty here."},
	{"Feature flags", "release", "Flags are debts: each one gets an owner and a removal date."},
	{"Timeouts", "reliability", "Every call has a deadline, and the deadline shrinks as it travels downstream."},
	{"Structured output", "api", "Return data that a program can read and text that a person can."},
	{"Terminal safety", "security", "Never print a server's string to a terminal without removing escape sequences."},
}

var noteAuthors = []string{"ada", "grace", "linus", "barbara", "ken", "margaret"}

var notes = sync.OnceValue(func() []note {
	out := make([]note, NoteCount)
	r := newPRNG(0x707e)
	for i := range out {
		t := noteTopics[i%len(noteTopics)]
		num := noteNumber(i + 1)
		title := "Note " + num + ": " + t.title
		var b strings.Builder
		b.WriteString("# " + title + "\n\n")
		b.WriteString("Tags: " + t.tag + "\n")
		b.WriteString("Written: 2025-06-" + twoDigits(1+i%14) + " by " + pick(r, noteAuthors) + "\n\n")
		b.WriteString(t.body + "\n\n")
		b.WriteString("Follow-up " + strconv.Itoa(1+r.intn(9)) + " of this note is tracked in ticket OPS-" + strconv.Itoa(1000+r.intn(9000)) + ".\n")
		out[i] = note{name: "note-" + num, title: title, text: b.String()}
	}
	return out
})

// NoteURI returns the URI of note n (1 <= n <= NoteCount), e.g.
// NoteURI(7) == "demo://notes/note-007".
func NoteURI(n int) string { return NoteURIPrefix + "note-" + noteNumber(n) }

func noteNumber(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 3 {
		s = strings.Repeat("0", 3-len(s)) + s
	}
	return s
}

func twoDigits(n int) string { return string(append2(nil, n)) }
