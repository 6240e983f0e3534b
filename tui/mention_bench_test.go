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
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.typeText("@")
			if !h.m.comp.IsOpen() {
				b.Fatal("@ did not open the popup")
			}
			h.keys("backspace")
		}
	})
	b.Run("open-update-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("@")}) // its list, unbuilt
			_ = h.update(keyMsg("backspace"))
		}
	})
	h.typeText("@")
	b.Run("first-key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.typeText("9")
			h.keys("backspace")
		}
	})
	b.Run("first-key-update-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("9")}) // its ranking, unrun
			_ = h.update(keyMsg("backspace"))
		}
	})
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
