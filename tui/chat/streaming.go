package chat

import "strings"

// streamChunkMin is the answer size from which a streaming answer is
// rendered block by block: below it one glamour pass is cheap enough.
const streamChunkMin = 1024

// mdChunk is one finished Markdown block of a streaming answer, rendered.
type mdChunk struct {
	src   string
	w     int
	lines []string
}

// streamingMarkdown renders a streaming answer: the finished blocks from
// their cache, only the block still being written through glamour, so a
// long answer costs its last paragraph per frame, not its length. When the
// answer ends, the item renders whole again (renderItem), which is what
// the transcript keeps.
func (t *transcript) streamingMarkdown(it *chatItem, text string, w int) []string {
	if len(text) < streamChunkMin {
		return t.md.Render(text, w)
	}
	var out []string
	start := 0
	for i, end := range safeCuts(text) {
		src := text[start:end]
		if i >= len(it.chunks) || it.chunks[i].src != src || it.chunks[i].w != w {
			it.chunks = append(it.chunks[:i], mdChunk{src: src, w: w, lines: t.md.Render(src, w)})
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, it.chunks[i].lines...)
		start = end
	}
	if tail := strings.TrimLeft(text[start:], "\n"); tail != "" {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, t.md.Render(tail, w)...)
	}
	return out
}

// safeCuts are the offsets where a Markdown text splits into blocks that
// render alone as they render together: a blank line outside a code fence
// followed by a block that cannot continue the previous one (not a list
// item, an indented line or a quote). Each cut ends a block before its
// blank line.
func safeCuts(text string) []int {
	var cuts []int
	inFence := false
	pos := 0
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		trimmed := strings.TrimRight(l, "\n")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
		}
		// The next line must be complete: "-" may still grow into "- item".
		if !inFence && trimmed == "" && i > 0 && i+1 < len(lines) && strings.HasSuffix(lines[i+1], "\n") &&
			startsBlock(lines[i+1]) && !continues(lines[i-1]) {
			cuts = append(cuts, pos)
		}
		pos += len(l)
	}
	return cuts
}

// startsBlock reports whether a line starts a block that cannot belong to
// the block before it.
func startsBlock(l string) bool {
	l = strings.TrimRight(l, "\n")
	if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '>' || l[0] == '|' {
		return false
	}
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") {
		return false
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return false
	}
	return !strings.HasPrefix(l, "[") // reference definitions bind to earlier text
}

// continues reports whether a block's last line may be continued by what
// follows a blank line (a list item or a quote).
func continues(l string) bool {
	l = strings.TrimLeft(strings.TrimRight(l, "\n"), " ")
	return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, ">")
}
