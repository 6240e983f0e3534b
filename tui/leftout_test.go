package tui

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/dialog"
)

// longCompletionsArg makes the test binary mcptest.LongCompletionsServer:
// a prompt whose argument completes to two short values and two over
// mcp.MaxCompletionValueBytes.
const longCompletionsArg = "long-completions"

func longCompletionsServer(name string) mcp.ServerConfig {
	c := demoServer(name)
	c.Args = []string{longCompletionsArg}
	return c
}

// The values a server's completion left out for their length are said
// where the rest are offered: under the `.prompt` value popup and under a
// form field's suggestions, naming the bound.
func TestCompletionPopupsSayWhichValuesWereLeftOutForTheirLength(t *testing.T) {
	rt := sharedRuntime(t, "long-completions", longCompletionsServer("long"))
	hs := newChatHarness(t, rt, []string{"long"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	const note = "2 values over 4 KiB left out (MaxCompletionValueBytes)"

	hs.m.input.SetValue(".prompt long pick flavour=")
	hs.keys("tab")
	if got := completionLabels(hs); strings.Join(got, ",") != "short,also-short" {
		t.Errorf("the popup offers %v, want [short also-short]", got)
	}
	if v := hs.view(); !strings.Contains(v, note) {
		t.Errorf("the popup does not say %q:\n%s", note, v)
	}
	hs.m.comp.Close()
	if v := hs.view(); strings.Contains(v, note) {
		t.Errorf("the note outlived its popup:\n%s", v)
	}

	hs.line(".prompt long pick")
	d, ok := hs.m.dialogs.Top().(*dialog.FormDialog)
	if !ok {
		t.Fatalf("no prompt form: %T", hs.m.dialogs.Top())
	}
	hs.typeText("s")
	if fl := d.Form().Fields()[0]; strings.Join(fl.Suggestions(), ",") != "short,also-short" {
		t.Fatalf("the field suggests %v, want [short also-short]", fl.Suggestions())
	}
	if v := hs.view(); !strings.Contains(v, note) {
		t.Errorf("the form does not say %q:\n%s", note, v)
	}
}

// A popup that only says values were left out (none of the rest match
// the word) offers nothing to accept: its hint does not say enter
// accepts, and enter sends the line as it would without the popup.
func TestAPopupOfOnlyLeftOutValuesLetsEnterSendTheLine(t *testing.T) {
	rt := sharedRuntime(t, "long-completions", longCompletionsServer("long"))
	hs := newChatHarness(t, rt, []string{"long"}, 120, 40, Options{})
	defer hs.dumpOnFailure()
	hs.m.input.SetValue(".prompt long pick flavour=x")
	hs.keys("tab")
	v := hs.view()
	if !hs.m.comp.IsOpen() || !strings.Contains(v, "2 values over 4 KiB left out") {
		t.Fatalf("the popup does not open for the values left out:\n%s", v)
	}
	if strings.Contains(v, "enter accepts") {
		t.Errorf("a popup with nothing to choose says enter accepts:\n%s", v)
	}
	hs.keys("enter")
	if hs.m.comp.IsOpen() || hs.m.input.Value() != "" {
		t.Errorf("enter did not send the line: popup open %v, input %q", hs.m.comp.IsOpen(), hs.m.input.Value())
	}
}
