package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/tui/common/commontest"
)

// BenchmarkMention120k is the @-mention popup over 100,000 resources:
// opening it (the "@" key, and a backspace that closes it) with its list
// built and on the update path alone (the list is built off it), the
// first key after "@" (and a backspace) with its ranking and on the
// update path alone, and a key that extends the word.
func BenchmarkMention120k(b *testing.B) {
	rt := newFakeRuntime()
	rt.addServer("big", commontest.ScaleCatalog()...)
	_, model := scriptedModel(b, llmtest.Sequence(llmtest.Turn{Text: "OK."}))
	h := newChatHarness(b, rt, []string{"big"}, 120, 40, Options{Model: model})
	// typed types k and a backspace, running what follows (the list or
	// the ranking too) or, updateOnly, leaving it unrun.
	typed := func(name, k string, updateOnly bool) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if updateOnly {
					_ = h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
					_ = h.update(keyMsg("backspace"))
					continue
				}
				h.typeText(k)
				if !h.m.comp.IsOpen() {
					b.Fatalf("%q: the popup is not open", k)
				}
				h.keys("backspace")
			}
		})
	}
	typed("open", "@", false)
	typed("open-update-path", "@", true)
	h.typeText("@")
	typed("first-key", "9", false)
	typed("first-key-update-path", "9", true)
	h.typeText("9")
	b.Run("next-key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			h.keys("backspace")
			h.typeText("9")
			b.StartTimer()
			h.typeText("9")
		}
	})
}
