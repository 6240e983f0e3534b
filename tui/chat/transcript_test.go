package chat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

func TestIncrementalRenderEqualsAFullRender(t *testing.T) {
	com := &common.Common{Theme: testCommon().Theme, Styles: testCommon().Styles}
	inc := transcript{com: com, md: common.NewMarkdown(com.Theme)}
	for i := range 40 {
		inc.add(&chatItem{kind: itemUser, text: "question " + strings.Repeat("x", i)})
		inc.add(&chatItem{kind: itemAssistant, model: "m", text: "**answer** " + strings.Repeat("word ", i)})
	}
	tail := inc.add(&chatItem{kind: itemAssistant, model: "m", streaming: true})
	answer := "# Title\n\nSome *text* and a list:\n\n- one\n- two\n\n```go\nfunc main() {}\n```\n\nThe end."
	for _, tok := range strings.SplitAfter(answer, " ") {
		tail.text += tok
		tail.touch()
		inc.window(70, 0, 1<<30) // render as View would, from the caches
	}
	tail.streaming = false
	tail.touch()
	got, _ := inc.window(70, 0, 1<<30)
	full := transcript{com: com, md: common.NewMarkdown(com.Theme)}
	for _, it := range inc.items {
		c := *it
		c.hasCached, c.cache = false, nil
		full.add(&c)
	}
	want, _ := full.window(70, 0, 1<<30)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("incremental render differs from a full render:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStreamingBlocksRenderAsTheWholeAnswerDoes(t *testing.T) {
	com := &common.Common{Theme: testCommon().Theme, Styles: testCommon().Styles}
	tr := transcript{com: com, md: common.NewMarkdown(com.Theme)}
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "## Part %d\n\nSome **bold** prose with `code`, long enough to wrap across the width of the pane at least once or twice.\n\n", i)
		b.WriteString("```go\nfunc f() int {\n\n\treturn 1\n}\n```\n\n- one\n- two\n\n1. first\n2. second\n\n> a quote\n\nAfter the quote.\n\n")
	}
	answer := b.String()
	it := &chatItem{kind: itemAssistant, streaming: true}
	for n := 37; n <= len(answer); n += 37 {
		it.text = answer[:n]
		it.touch()
		tr.inlineLeft = InlineMarkdownBytes // a pass over the transcript
		got := tr.itemLines(it, 80)[1:]     // under the model's name
		want := expandLineTabs(tr.md.Render(common.ExpandTabs(render.Sanitize(it.text)), 80))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("at %d bytes the block render differs from the whole render:\n%s\n--- want\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if it.live == nil || it.live.drawn < 10 {
		t.Errorf("fewer than 10 finished blocks were kept: %+v", it.live)
	}
}
