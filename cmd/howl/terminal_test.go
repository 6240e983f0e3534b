package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
