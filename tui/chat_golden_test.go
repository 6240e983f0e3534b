package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
)

// steadyDurations fixes the tool blocks' durations, so goldens do not
// depend on how fast the demo answered.
func steadyDurations(h *harness) {
	h.m.chat.FixDurations(3 * time.Millisecond)
}

// TestGoldenChat draws the chat of the issue at 80x24 and 120x40: a
// conversation with Markdown, a code block and a tool call block (collapsed
// and expanded), the `.prompt` argument form, and the completion popup at
// each of the three stages.
func TestGoldenChat(t *testing.T) {
	rt := demoRuntime(t)
	steps := []struct {
		name string
		do   func(h *harness)
	}{
		{"chat_conversation", func(h *harness) { h.line("what is 2 + 3?"); steadyDurations(h) }},
		{"chat_tool_expanded", func(h *harness) {
			h.line("what is 2 + 3?")
			steadyDurations(h)
			h.keys("shift+tab", "space")
		}},
		{"chat_prompt_form", func(h *harness) { h.line(".prompt demo " + demo.CodeReviewPrompt) }},
		{"chat_complete_servers", func(h *harness) { h.m.input.SetValue(".prompt "); h.keys("tab") }},
		{"chat_complete_prompts", func(h *harness) { h.m.input.SetValue(".prompt demo "); h.keys("tab") }},
		{"chat_complete_keys", func(h *harness) { h.m.input.SetValue(".prompt demo code_review "); h.keys("tab") }},
	}
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					_, model := scriptedModel(t, conversationScript())
					h := newChatHarness(t, rt, []string{"demo"}, size.w, size.h, Options{Model: model})
					s.do(h)
					requireGolden(t, h.view())
				})
			}
		})
	}
}
