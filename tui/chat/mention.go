package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sahilm/fuzzy"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/common"
)

// MaxMentions is how many @-mentions one message may attach.
const MaxMentions = 8

// mentionRE finds @server:uri in a message (the URI ends at white space).
var mentionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`) })

// mention is one @server:uri in a message.
type Mention struct{ server, uri string }

// NewMention is the @-mention of a server's resource.
func NewMention(server, uri string) Mention { return Mention{server: server, uri: uri} }

func (m Mention) String() string { return "@" + m.server + ":" + m.uri }

// parseMentions lists the message's mentions of known servers, once each,
// in order.
func ParseMentions(text string, servers []string) []Mention {
	known := map[string]bool{}
	for _, s := range servers {
		known[s] = true
	}
	seen := map[Mention]bool{}
	var out []Mention
	for _, sm := range mentionRE().FindAllStringSubmatch(text, -1) {
		m := Mention{server: sm[1], uri: strings.TrimRight(sm[2], ".,;:!?)")}
		if !known[m.server] || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// MentionAttachment is a section the model reads after the person's text:
// a mentioned resource as mcp_read returns it (bounded, coverage first; a
// binary is its spill metadata), or an MCP App's model context. name is
// its chip and its name in the record, header introduces body to the model.
type MentionAttachment struct {
	name, header, body string
}

// mentionAttachment is m's resource, read as out.
func mentionAttachment(m Mention, out string) MentionAttachment {
	return MentionAttachment{name: m.String(), body: out,
		header: fmt.Sprintf("[attached %s, as mcp_read_%s returns it]", m, mcp.FunctionSuffix(m.server))}
}

// mentionFailure is a mention that could not be read, and why.
type MentionFailure struct {
	Mention Mention
	Err     error
}

// mentionsReadMsg carries the reads of one message's mentions.
type MentionsRead struct {
	Text   string
	Atts   []MentionAttachment
	Failed []MentionFailure
}

// readMentionsCmd reads each mention through mcp_read, as the model would.
func ReadMentionsCmd(ctx context.Context, rt Runtime, id common.RequestID, text string, ms []Mention) tea.Cmd {
	return common.Deliver(common.OwnerChat, id, func() tea.Msg {
		msg := MentionsRead{Text: text}
		for _, m := range ms {
			args, _ := json.Marshal(map[string]string{"uri": m.uri})
			out, err := rt.CallMeta(ctx, mcp.PrefixRead+mcp.FunctionSuffix(m.server), args)
			if err != nil {
				msg.Failed = append(msg.Failed, MentionFailure{m, err})
				continue
			}
			msg.Atts = append(msg.Atts, mentionAttachment(m, string(out)))
		}
		return msg
	})
}

// withAttachments appends one section per attachment to the message, and
// says where each is in it (so a reopened conversation shows them as chips).
func withAttachments(text string, atts []MentionAttachment) (string, []llm.Attachment) {
	if len(atts) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.WriteString(text)
	marks := make([]llm.Attachment, len(atts))
	for i, a := range atts {
		marks[i] = llm.Attachment{Name: a.name, Section: b.Len()}
		fmt.Fprintf(&b, "\n\n%s\n", a.header)
		marks[i].Body = b.Len()
		b.WriteString(a.body)
		marks[i].End = b.Len()
	}
	return b.String(), marks
}

// splitAttachments is withAttachments undone: the text the person typed
// and each attachment's name and body. Marks that do not fit the text
// (a damaged record) leave it whole.
func splitAttachments(text string, marks []llm.Attachment) (string, []llm.Attachment, []string) {
	if len(marks) == 0 {
		return text, nil, nil
	}
	bodies := make([]string, len(marks))
	prev := marks[0].Section
	for i, m := range marks {
		if m.Section < prev || m.Section > m.Body || m.Body > m.End || m.End > len(text) {
			return text, nil, nil
		}
		bodies[i], prev = text[m.Body:m.End], m.End
	}
	return text[:marks[0].Section], marks, bodies
}

// attachmentChip is the transcript's block for an attached resource:
// shift+tab selects it like a tool block, enter opens it.
func attachmentChip(name, body string) *chatItem {
	return &chatItem{kind: itemTool, attachment: true, name: name, summary: "attached", bytes: len(body), result: body}
}

// mentionWord is the byte offset of the @word the input ends with, or -1.
func MentionWord(line string) int {
	i := strings.LastIndexAny(line, " \t\n") + 1
	if strings.HasPrefix(line[i:], "@") {
		return i
	}
	return -1
}

// mentionIndex ranks an open mention popup's items by a fuzzy match of
// the typed word (after @), key by key. The fuzzy match
// finds the typed letters in order, so a word that extends the last one
// matches among the last one's matches only: at 100,000 resources a key
// searched them all on the update path.
type mentionIndex struct {
	// last is the word (after @) cands matched; cands are their indexes
	// in the popup's items, in order, so ties rank as in a full search.
	last  string
	cands []int
}

// labelSource is a fuzzy.Source over items' labels (after @), at idx
// (every item when idx is nil).
type labelSource struct {
	items []Completion
	idx   []int
}

func (s labelSource) String(i int) string {
	if s.idx != nil {
		i = s.idx[i]
	}
	return strings.TrimPrefix(s.items[i].label, "@")
}

func (s labelSource) Len() int {
	if s.idx != nil {
		return len(s.idx)
	}
	return len(s.items)
}

// mentionChunk is how many items a ranking matches between checks of its
// context (about a millisecond's work).
const mentionChunk = 2048

// rankedChunk, when set (by a test), is called after each chunk a
// ranking matched, from the goroutine that matched it: it counts the
// work a ranking did.
var rankedChunk func()

// chunkSource is n of src's items, from lo.
type chunkSource struct {
	src   labelSource
	lo, n int
}

func (s chunkSource) String(i int) string { return s.src.String(s.lo + i) }
func (s chunkSource) Len() int            { return s.n }

// rankKey orders a match of score at place i of a source: higher scores
// first, then places in order (a score is clamped to an int32).
func rankKey(score, i int) uint64 {
	score = max(min(score, math.MaxInt32), math.MinInt32)
	return uint64(math.MaxInt32-score)<<32 | uint64(uint32(i))
}

// narrow ranks items by a fuzzy match of partial (after @), from the
// last word's matches when partial extends it. It checks ctx between
// chunks of mentionChunk items: a ranking cancelled (a newer key, the
// popup closed) stops there, leaves x as it was and answers ok false.
func (x *mentionIndex) narrow(ctx context.Context, items []Completion, partial string) (_ []Completion, ok bool) {
	p := strings.TrimPrefix(partial, "@")
	if p == "" {
		x.last, x.cands = "", nil
		return items, true
	}
	src := labelSource{items: items}
	if x.last != "" && strings.HasPrefix(p, x.last) {
		src.idx = x.cands
		if src.idx == nil {
			src.idx = []int{} // the last word matched nothing: neither can this
		}
	}
	// Each match is one integer, its score and its place (rankKey); one
	// sort of them is the order fuzzy.FindFrom gives over the whole
	// source, best score first and ties in item order. The chunks are
	// shared by workers (common.RunChunks), as the catalog filter's are.
	chunks := (src.Len() + mentionChunk - 1) / mentionChunk
	found := make([][]uint64, chunks)
	common.RunChunks(ctx, chunks, func() func(int) {
		return func(c int) {
			lo := c * mentionChunk
			var keys []uint64
			for _, mt := range fuzzy.FindFromNoSort(p, chunkSource{src: src, lo: lo, n: min(mentionChunk, src.Len()-lo)}) {
				keys = append(keys, rankKey(mt.Score, lo+mt.Index))
			}
			found[c] = keys
			if rankedChunk != nil {
				rankedChunk()
			}
		}
	})
	if ctx.Err() != nil {
		return nil, false
	}
	n := 0
	for _, f := range found {
		n += len(f)
	}
	keys := make([]uint64, 0, n)
	for _, f := range found {
		keys = append(keys, f...)
	}
	slices.Sort(keys)
	if ctx.Err() != nil {
		return nil, false
	}
	out := make([]Completion, len(keys))
	cands := make([]int, len(keys))
	for i, k := range keys {
		at := int(uint32(k))
		if src.idx != nil {
			at = src.idx[at]
		}
		out[i], cands[i] = items[at], at
	}
	slices.Sort(cands)
	x.last, x.cands = p, cands
	return out, true
}
