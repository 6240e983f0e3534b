package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
)

// A question whose server stops waiting returns at once, and the line the
// person types next goes to the next question, not the dead one.
func TestTerminalQuestionStopsWhenTheServerGivesUpAndLosesNoLine(t *testing.T) {
	in, typed := io.Pipe()
	defer typed.Close()
	var out bytes.Buffer
	term := newTerminal(in, &out)
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan mcp.ElicitResponse, 1)
	go func() {
		resp, _ := term.elicit(ctx, "s", mcp.ElicitRequest{Mode: "form", Message: "first?", Schema: schema})
		done <- resp
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case resp := <-done:
		if resp.Action != mcp.ElicitCancel {
			t.Errorf("a withdrawn question answered %q, want cancel", resp.Action)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a withdrawn question kept waiting for stdin")
	}

	go func() { _, _ = io.WriteString(typed, "Ada\n\n") }()
	resp, err := term.elicit(context.Background(), "s", mcp.ElicitRequest{Mode: "form", Message: "second?", Schema: schema})
	if err != nil || resp.Action != mcp.ElicitAccept || resp.Content["name"] != "Ada" {
		t.Errorf("the next question got %+v, %v; want accept with name Ada", resp, err)
	}
}

// Answers that do not fit the schema are explained and asked again;
// choices, bounds, formats and multi-selects come back typed.
func TestTerminalElicitationChecksAnswersAndAsksAgain(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
	 "age":{"type":"integer","minimum":18,"maximum":130,"title":"Your age"},
	 "email":{"type":"string","format":"email"},
	 "plan":{"type":"string","oneOf":[{"const":"p1","title":"Basic"},{"const":"p2","title":"Pro"}]},
	 "toppings":{"type":"array","items":{"enum":["ch","ol","mu"]}},
	 "note":{"type":"string","default":"none"}
	},"required":["email","age"]}`)
	// email (required first, in the list's order): bad, then good; age:
	// out of bounds, then 36; note: default; plan: bad, then p2;
	// toppings: two; then send. A titled choice takes its title too.
	typed := "not-an-email\nada@example.com\n7\n36\n\nplatinum\npro\nch, ol\n\n"
	var out bytes.Buffer
	term := newTerminal(strings.NewReader(typed), &out)
	resp, err := term.elicit(context.Background(), "s", mcp.ElicitRequest{Mode: "form", Message: "order?", Schema: schema})
	if err != nil || resp.Action != mcp.ElicitAccept {
		t.Fatalf("%+v %v\n%s", resp, err, out.String())
	}
	got, _ := json.Marshal(resp.Content)
	if string(got) != `{"age":36,"email":"ada@example.com","note":"none","plan":"p2","toppings":["ch","ol"]}` {
		t.Errorf("content %s\n%s", got, out.String())
	}
	for _, want := range []string{`"not-an-email" is not a valid email: write it like name@example.com`, "7 is below the minimum 18: enter a number from 18 to 130", `"platinum" is not one of [p1 (Basic) p2 (Pro)]`, "email * (string, email): ",
		"age * (integer, 18 to 130) Your age: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal did not say %q:\n%s", want, out.String())
		}
	}
}

// Run with stdin from /dev/null (cron, CI, `howl call … </dev/null`),
// howl used to take it for a terminal, since it is a character device:
// every server question was printed and "asked", and every sampling
// request went looking for a model, a gigabyte under a flood of them. With
// no terminal, questions are declined at once, and nothing is asked.
func TestStdinFromDevNullIsNoTerminalSoQuestionsAreDeclined(t *testing.T) {
	isolate(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	run([]string{"call", "demo", "book_table"}, null, &out, &errb)
	if !strings.Contains(out.String(), "You declined the form") || strings.Contains(errb.String(), "asks") {
		t.Errorf("with stdin from %s, book_table printed\n%s\nstderr:\n%s\nwant the form declined and no question on stderr", os.DevNull, out.String(), errb.String())
	}
}
