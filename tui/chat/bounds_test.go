package chat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// feed hands the pane one batch of its turn's events.
func feed(m *Pane, events ...llm.Event) {
	m.HandleResult(common.Result{Owner: common.OwnerChat, ID: m.turn, Msg: turnEventsMsg{events: events}})
}

// TestAppendingATokenToALongAnswerCopiesOnlyTheToken pins the streaming
// tail's growth without a clock: appending 1,000 tokens to a 1 MiB
// answer allocates about what was appended (plus the buffer's growth),
// not the answer once per token (1 GB), and the answer is the tokens in
// order, whether or not the text was set from elsewhere in between.
func TestAppendingATokenToALongAnswerCopiesOnlyTheToken(t *testing.T) {
	m := benchChat(&testing.B{}, 10)
	long := strings.Repeat("Some prose, repeated. ", (1<<20)/22)
	// apply, not HandleResult: the frame's scroll position (stick) draws
	// the tail, a cost of its own that this test leaves out.
	m.apply(llm.TextDelta{Text: long})
	m.apply(llm.ReasoningDelta{Text: long})
	got := commontest.AllocatedBy(func() {
		for range 1000 {
			m.apply(llm.TextDelta{Text: "word "})
			m.apply(llm.ReasoningDelta{Text: "hmm "})
		}
	})
	if got > 16<<20 {
		t.Errorf("1,000 tokens appended to a %d-byte answer allocated %d MiB: the answer is copied per token", len(long), got>>20)
	}
	if want := "Streaming a reply: " + long + strings.Repeat("word ", 1000); m.cur.text != want {
		t.Errorf("the answer is %d bytes, want %d", len(m.cur.text), len(want))
	}
	if want := long + strings.Repeat("hmm ", 1000); m.cur.reasoning != want {
		t.Errorf("the reasoning is %d bytes, want %d", len(m.cur.reasoning), len(want))
	}
	m.cur.text = "Reset: "
	m.apply(llm.TextDelta{Text: "word"})
	if m.cur.text != "Reset: word" {
		t.Errorf("after the text was set, appending gave %q", m.cur.text)
	}
}

// TestTheChatSaysWhenHowlCutAReplyOrRefusedCalls: a reply howl stopped
// reading at MaxReplyBytes, and a reply with more calls than
// MaxToolCallsPerStep, each leave a notice naming the bound.
func TestTheChatSaysWhenHowlCutAReplyOrRefusedCalls(t *testing.T) {
	m := benchChat(&testing.B{}, 2)
	feed(m, llm.TooManyToolCalls{Step: 1, Calls: 100, Kept: llm.MaxToolCallsPerStep}, llm.TextDelta{Text: "again and again"},
		llm.Done{Reason: llm.StopAnswered, Steps: 2, OverMaxBytes: true})
	m.SetSize(400, 36)
	screen := strings.Join(m.Render(0), "\n")
	for _, want := range []string{
		fmt.Sprintf("the model asked for 100 tool calls in one reply; howl took the first %d (MaxToolCallsPerStep)", llm.MaxToolCallsPerStep),
		fmt.Sprintf("howl stopped reading the reply at MaxReplyBytes (%d bytes)", llm.MaxReplyBytes),
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the chat lacks %q:\n%s", want, screen)
		}
	}
}

// A model's arguments nested thousands deep are shown on one line: the
// indented form of 9 KB of them would be 18 MB.
func TestDeeplyNestedArgumentsAreNotIndentedIntoMegabytes(t *testing.T) {
	deep := strings.Repeat("[", 3000) + strings.TrimSuffix(strings.Repeat("1,", 1500), ",") + strings.Repeat("]", 3000)
	if got := PrettyArgs(deep); len(got) > 16*len(deep) || !strings.Contains(got, "1,1,1") {
		t.Errorf("%d bytes of arguments are shown as %d bytes", len(deep), len(got))
	}
	if got := PrettyArgs(`{"a":[1,2]}`); got != "{\n  \"a\": [\n    1,\n    2\n  ]\n}" {
		t.Errorf("ordinary arguments are shown as %q", got)
	}
}

// A tool block's one-line arguments read only their start: a running
// block is drawn again on every spinner tick, and folding the white space
// of 2 MiB of arguments each time cost 80 ms a frame.
func TestShortTextReadsOnlyTheStartOfLongArguments(t *testing.T) {
	long := strings.Repeat("x ", 1<<20)
	var got string
	if n := commontest.AllocatedBy(func() { got = shortText(long, 60) }); n > 64<<10 {
		t.Errorf("shortening 2 MiB of arguments allocated %d bytes", n)
	}
	if len(got) > 64 || !strings.HasPrefix(got, "x x x") || !strings.HasSuffix(got, "…") {
		t.Errorf("2 MiB of arguments are shown as %q", got)
	}
	if got := shortText("{\"a\":\n  1}", 60); got != `{"a": 1}` {
		t.Errorf("short arguments are shown as %q", got)
	}
}
