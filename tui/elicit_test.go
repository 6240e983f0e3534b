package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/dialog"
)

// profileSchema asks for every kind of field, with defaults.
const profileSchema = `{"type":"object","properties":{
 "name":{"type":"string","title":"Your name","default":"Ada","minLength":2},
 "email":{"type":"string","format":"email","description":"where the receipt goes"},
 "age":{"type":"integer","minimum":18,"maximum":130},
 "newsletter":{"type":"boolean","default":true},
 "plan":{"type":"string","oneOf":[{"const":"p1","title":"Basic"},{"const":"p2","title":"Pro"}],"default":"p1"},
 "toppings":{"type":"array","items":{"anyOf":[{"const":"ch","title":"Cheese"},{"const":"ol","title":"Olives"},{"const":"mu","title":"Mushrooms"}]},"minItems":1,"maxItems":2,"default":["ol"]}
},"required":["name","email","age"]}`

// TestElicitationDialogSendsWhatThePersonTyped: a real server's form
// request opens the dialog (server named, message sanitized, defaults
// filled in: the golden), the person fills it, and the server receives the
// typed content.
func TestElicitationDialogSendsWhatThePersonTyped(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "ask", map[string]any{"message": "Who is ordering?\x1b[31m (red)", "schema": profileSchema})
	b.waitDialog("elicit")
	view := b.h.view()
	for _, want := range []string{"Question from asker", "Server asker asks:", "Who is ordering? (red)", "Ada", "[x] Olives", "‹ Basic ›", "‹ yes ›", "ctrl+d decline"} {
		if !strings.Contains(view, want) {
			t.Errorf("the dialog does not show %q", want)
		}
	}
	requireGolden(t, view)

	// The schema reaches howl as a decoded object, its written order lost:
	// the required fields come first in the "required" list's order, then
	// the others by name.
	b.h.typeText(" Lovelace")
	b.h.keys("tab")
	b.h.typeText("ada@example.com")
	b.h.keys("tab")
	b.h.typeText("36")
	b.h.keys("tab", "tab", "right", "tab", "space") // newsletter stays yes; plan → Pro; pick Cheese
	b.h.keys("ctrl+s")
	got := b.result(out)
	for _, want := range []string{`"action":"accept"`, `"name":"Ada Lovelace"`, `"email":"ada@example.com"`, `"age":36`, `"newsletter":true`, `"plan":"p2"`, `"toppings":["ch","ol"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("the server received %s; want %s in it", got, want)
		}
	}
	if b.h.m.dialogs.Len() != 0 {
		t.Errorf("the dialog is still open after accepting")
	}
}

// TestElicitationDialogChecksBoundsAndFormatsBeforeSending: wrong values
// stay in the dialog with errors that say what to write; fixed, they go.
func TestElicitationDialogChecksBoundsAndFormatsBeforeSending(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "ask", map[string]any{"message": "Check me", "schema": profileSchema})
	b.waitDialog("elicit")
	b.h.keys("backspace", "backspace", "backspace") // name: "" (min length 2)
	b.h.typeText("A")
	b.h.keys("tab")
	b.h.typeText("not-an-email")
	b.h.keys("tab")
	b.h.typeText("7")                                               // age
	b.h.keys("tab", "tab", "tab", "space", "down", "down", "space") // toppings: Cheese, Olives, Mushrooms
	b.h.keys("ctrl+s")
	view := b.h.view()
	for _, want := range []string{
		"1 characters, at least 2 needed",
		`"not-an-email" is not a valid email: write it like name@example.com`,
		"7 is below the minimum 18: enter a number from 18 to 130",
		"3 chosen, at most 2 allowed",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the dialog does not show %q", want)
		}
	}
	select {
	case got := <-out:
		t.Fatalf("the server got an answer from an invalid form: %s", got)
	default:
	}
	// Fix every field and send.
	b.h.m.dialogs.Top().(*dialog.ElicitDialog).Form().SetValue("name", "Al")
	b.h.m.dialogs.Top().(*dialog.ElicitDialog).Form().SetValue("email", "al@example.com")
	b.h.m.dialogs.Top().(*dialog.ElicitDialog).Form().SetValue("age", "130")
	b.h.keys("shift+tab", "shift+tab", "space") // back to the toppings (past the button); the cursor is still on Mushrooms
	b.h.keys("ctrl+s")
	got := b.result(out)
	if !strings.Contains(got, `"age":130`) || !strings.Contains(got, `"toppings":["ch","ol"]`) {
		t.Errorf("the server received %s", got)
	}
}

// TestElicitationDialogDeclinesAndCancels: ctrl+d declines and esc
// cancels, and the server hears which, with no content.
func TestElicitationDialogDeclinesAndCancels(t *testing.T) {
	b := newAskBench(t, Options{})
	for _, c := range []struct{ key, want string }{{"ctrl+d", "decline"}, {"esc", "cancel"}} {
		out := b.call(context.Background(), "ask", map[string]any{"message": "Anything?", "schema": profileSchema})
		b.waitDialog("elicit")
		b.h.keys(c.key)
		got := b.result(out)
		if !strings.Contains(got, `"action":"`+c.want+`"`) || strings.Contains(got, "Ada") {
			t.Errorf("%s: the server received %s, want action %s and no content", c.key, got, c.want)
		}
		if b.h.m.dialogs.Len() != 0 {
			t.Errorf("%s: the dialog is still open", c.key)
		}
	}
}

// TestElicitationMultiSelectAndLegacyEnumNames: an array of items.enum is
// a multi-select; enumNames title a single choice; values are sent.
func TestElicitationMultiSelectAndLegacyEnumNames(t *testing.T) {
	b := newAskBench(t, Options{})
	schema := `{"type":"object","properties":{
	 "days":{"type":"array","items":{"type":"string","enum":["mon","tue","wed"]},"minItems":2},
	 "size":{"type":"string","enum":["s","m","l"],"enumNames":["Small","Medium","Large"]}}}`
	out := b.call(context.Background(), "ask", map[string]any{"message": "When?", "schema": schema})
	b.waitDialog("elicit")
	b.h.keys("space", "ctrl+s")
	if view := b.h.view(); !strings.Contains(view, "1 chosen, at least 2 needed: pick more with space") {
		t.Errorf("one pick of at least two was not refused:\n%s", view)
	}
	b.h.keys("down", "down", "space", "tab", "right", "right")
	if view := b.h.view(); !strings.Contains(view, "‹ Medium ›") {
		t.Errorf("the enum's titles are not shown:\n%s", view)
	}
	b.h.keys("ctrl+s")
	got := b.result(out)
	if !strings.Contains(got, `"days":["mon","wed"]`) || !strings.Contains(got, `"size":"m"`) {
		t.Errorf("the server received %s", got)
	}
}

// TestElicitationURLOpensOnlyWhenConfirmed: a URL request shows the URL
// and opens it with $BROWSER only on enter (then answers accept); d
// declines without opening; a non-web URL is never opened.
func TestElicitationURLOpensOnlyWhenConfirmed(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$1\" >> "+record+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	b := newAskBench(t, Options{})
	const link = "https://example.com/verify?code=42"

	out := b.call(context.Background(), "ask_url", map[string]any{"message": "Verify your account", "url": link})
	b.waitDialog("elicit-url")
	view := b.h.view()
	for _, want := range []string{"Server asker asks:", "Verify your account", link, "example.com", "enter/o open it"} {
		if !strings.Contains(view, want) {
			t.Errorf("the URL dialog does not show %q:\n%s", want, view)
		}
	}
	b.h.keys("d")
	if got := b.result(out); !strings.Contains(got, `"action":"decline"`) {
		t.Errorf("declined: the server received %s", got)
	}
	if _, err := os.Stat(record); err == nil {
		t.Fatal("the browser ran although the person declined")
	}

	out = b.call(context.Background(), "ask_url", map[string]any{"message": "Verify your account", "url": link})
	b.waitDialog("elicit-url")
	b.h.keys("enter")
	if got := b.result(out); !strings.Contains(got, `"action":"accept"`) {
		t.Errorf("opened: the server received %s", got)
	}
	data, err := os.ReadFile(record)
	if err != nil || strings.TrimSpace(string(data)) != link {
		t.Errorf("the browser was given %q (%v), want %s", data, err, link)
	}

	out = b.call(context.Background(), "ask_url", map[string]any{"message": "Open this", "url": "file:///etc/passwd"})
	b.waitDialog("elicit-url")
	b.h.keys("enter")
	if view := b.h.view(); !strings.Contains(view, `howl will not open it: its scheme is "file"; howl opens only https`) {
		t.Errorf("a file URL is not refused:\n%s", view)
	}
	b.h.keys("esc")
	if got := b.result(out); !strings.Contains(got, `"action":"cancel"`) {
		t.Errorf("cancelled: the server received %s", got)
	}
	if data, _ := os.ReadFile(record); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the browser ran %d times, want once: %q", strings.Count(string(data), "\n"), data)
	}
}

// A host written with look-alike letters (Cyrillic аррӏе.com) is shown as
// the punycode name the browser would resolve, saying how it is written.
func TestElicitationURLShowsALookAlikeHostAsItsPunycode(t *testing.T) {
	b := newAskBench(t, Options{})
	out := b.call(context.Background(), "ask_url", map[string]any{"message": "Sign in", "url": "https://аррӏе.com/login"})
	b.waitDialog("elicit-url")
	if view := b.h.view(); !strings.Contains(view, "xn--80ak6aa92e.com (written аррӏе.com)") {
		t.Errorf("the look-alike host is not shown as its punycode:\n%s", view)
	}
	b.h.keys("esc")
	b.result(out)
}

// TestElicitationDialogClosesWhenTheToolCallIsCancelled: the call that
// led the server to ask is cancelled while the dialog is open; the
// question ends with it and its dialog closes itself.
func TestElicitationDialogClosesWhenTheToolCallIsCancelled(t *testing.T) {
	b := newAskBench(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	out := b.call(ctx, "ask", map[string]any{"message": "Still there?", "schema": profileSchema})
	b.waitDialog("elicit")
	cancel()
	if got := b.result(out); !strings.Contains(got, "cancelled") {
		t.Errorf("the cancelled call returned %s", got)
	}
	b.pumpUntil("the dialog to close", func() bool { return b.h.m.dialogs.Len() == 0 })
	if !strings.Contains(b.h.view(), "asker withdrew its question") {
		t.Errorf("the status does not say the question was withdrawn:\n%s", b.h.view())
	}
}

// TestElicitationDialogClosesWhenTheRequestIsCancelled: the asker's
// context ends while the dialog is open; the dialog closes itself and the
// asking goroutine returns "cancel".
func TestElicitationDialogClosesWhenTheRequestIsCancelled(t *testing.T) {
	b := newAskBench(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan mcp.ElicitResponse, 1)
	go func() {
		resp, _ := b.relay.Elicit(ctx, "asker", mcp.ElicitRequest{Mode: "form", Message: "Still there?", Schema: []byte(profileSchema)})
		done <- resp
	}()
	b.waitDialog("elicit")
	cancel()
	select {
	case resp := <-done:
		if resp.Action != mcp.ElicitCancel {
			t.Errorf("the asker got %+v, want cancel", resp)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the asking goroutine did not return after its context ended")
	}
	b.pumpUntil("the dialog to close", func() bool { return b.h.m.dialogs.Len() == 0 })
	if !strings.Contains(b.h.view(), "asker withdrew its question") {
		t.Errorf("the status does not say the question was withdrawn:\n%s", b.h.view())
	}
}

// TestQuestionsWaitForTheOpenDialogAndEachOther: a question arriving over
// another dialog waits; two questions open one after the other.
func TestQuestionsWaitForTheOpenDialogAndEachOther(t *testing.T) {
	b := newAskBench(t, Options{})
	b.h.keys("?") // the help dialog
	first := b.call(context.Background(), "ask", map[string]any{"message": "First", "schema": `{"type":"object","properties":{"n":{"type":"integer","default":1}}}`})
	second := b.call(context.Background(), "ask", map[string]any{"message": "Second", "schema": `{"type":"object","properties":{"n":{"type":"integer","default":2}}}`})
	b.pumpUntil("both questions", func() bool { return len(b.h.m.asks) == 2 })
	if d := b.h.m.dialogs.Top(); d == nil || d.ID() != "help" {
		t.Fatalf("a question replaced the open dialog: %v", d)
	}
	b.h.keys("esc")
	b.waitDialog("elicit")
	b.h.keys("ctrl+s")
	b.waitDialog("elicit")
	b.h.keys("ctrl+s")
	a, c := b.result(first), b.result(second)
	if !strings.Contains(a+c, `"n":1`) || !strings.Contains(a+c, `"n":2`) {
		t.Errorf("answers %s and %s, want n 1 and n 2", a, c)
	}
}

// TestRelayCancelsQuestionsOnceTheProgramEnded: after Run returns nobody
// can answer, so questions end at once.
func TestRelayCancelsQuestionsOnceTheProgramEnded(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Run(ctx, func(tea.Msg) {})
	resp, err := r.Elicit(context.Background(), "s", mcp.ElicitRequest{Mode: "form"})
	if err != nil || resp.Action != mcp.ElicitCancel {
		t.Errorf("Elicit after the program = %+v, %v; want cancel", resp, err)
	}
	if res, err := r.Sample(context.Background(), "s", sampleReq("hi")); res != nil || err == nil {
		t.Errorf("Sample after the program = %v, %v; want an error", res, err)
	}
}

// An elicitation whose requested schema had 200,000 properties built
// 200,000 text inputs inside Update: 2.76 s frozen, 1.3 GB of heap. Past
// dialog.MaxFormFields it is declined before any field is built: the
// server hears decline, and the status bar and the server's log say why,
// naming the bound and the count.
func TestElicitationPastMaxFormFieldsIsDeclinedUnasked(t *testing.T) {
	b := newAskBench(t, Options{})
	const n = 20_000
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"f%d":{"type":"string"}`, i)
	}
	out := b.call(context.Background(), "ask", map[string]any{"message": "Fill these in", "schema": `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`})
	var got string
	b.pumpUntil("the answer or a dialog", func() bool {
		select {
		case got = <-out:
			return true
		default:
			return b.h.m.dialogs.Len() > 0
		}
	})
	if b.h.m.dialogs.Len() > 0 {
		t.Fatalf("a %s dialog opened for %d fields", b.h.m.dialogs.Top().ID(), n)
	}
	if !strings.Contains(got, `"action":"decline"`) {
		t.Errorf("the server received %s, want decline", got)
	}
	want := fmt.Sprintf("asker asked a question and howl declined it unasked: its requested schema has %d fields, more than a form holds (MaxFormFields = %d)", n, dialog.MaxFormFields)
	if info := b.h.m.status.info; info == nil || info.Msg != want {
		t.Errorf("the status bar says %+v, want %q", info, want)
	}
	if log := b.h.m.logs.Text("asker"); !strings.Contains(log, want) {
		t.Errorf("the server's log does not say why; it reads\n%s", log)
	}
}
