package tui

// The first hour with howl (issue 18): what a new user meets first in the
// chat and at start-up, each pinned by what the screen shows.

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/llm/llmtest"
)

func TestClearShowsTheChattingWithLineAgain(t *testing.T) {
	_, model := scriptedModel(t, llmtest.Sequence(llmtest.Turn{Text: "an answer"}))
	hs := newChatHarness(t, demoRuntime(t), []string{"demo"}, 80, 24, Options{Model: model})
	defer hs.dumpOnFailure()
	hs.line("hello")
	hs.line(".clear")
	v := hs.view()
	if strings.Contains(v, "an answer") {
		t.Fatalf(".clear left the old conversation on screen:\n%s", v)
	}
	if !strings.Contains(v, "Chatting with "+model.Name()) {
		t.Errorf("after .clear the pane does not say which model answers:\n%s", v)
	}
}
