package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/tui/dialog"
)

// A server that asks 500 questions at once used to leave the person a
// queue of 500 dialogs to work through, or a quit. Its dialog offers
// ctrl+x, which answers every one of its questions (decline; the ones past
// MaxQueuedQuestions were already answered unasked) and declines the next
// ones without a dialog, until `.mcp ask`.
func TestDeclineEverythingEmptiesAFloodingServersQueueAndAnswersAll(t *testing.T) {
	b := newAskBench(t, Options{StartInChat: true})
	const n = 500
	answers := make(chan mcp.ElicitResponse, n+2)
	ask := func(i int) {
		go func() {
			resp, _ := b.relay.Elicit(context.Background(), "asker", mcp.ElicitRequest{Mode: "form", Message: fmt.Sprintf("question %d", i),
				Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			answers <- resp
		}()
	}
	for i := range n {
		ask(i)
	}
	b.pumpUntil("every question to arrive", func() bool { return b.h.m.dialogs.Len()+len(b.h.m.asks)+len(answers) == n })
	b.waitDialog("elicit")
	if v := b.h.view(); !strings.Contains(v, "ctrl+x declines this one") || !strings.Contains(v, ".mcp ask asker") {
		t.Errorf("the dialog does not offer to decline everything, and how to undo it:\n%s", v)
	}
	b.h.keys("ctrl+x")
	got := map[string]int{}
	for range n {
		select {
		case a := <-answers:
			got[a.Action]++
		case <-time.After(30 * time.Second):
			t.Fatalf("after ctrl+x, %v of %d questions are answered; %d wait", got, n, len(b.h.m.asks))
		}
	}
	if b.h.m.dialogs.Len() != 0 || len(b.h.m.asks) != 0 {
		t.Errorf("after ctrl+x, %d dialogs are open and %d questions wait", b.h.m.dialogs.Len(), len(b.h.m.asks))
	}
	if got[mcp.ElicitDecline] != 1+MaxQueuedQuestions || got[mcp.ElicitCancel] != n-1-MaxQueuedQuestions {
		t.Errorf("answers %v: want the open and the %d waiting declined, the rest cancelled unasked", got, MaxQueuedQuestions)
	}

	ask(n)
	b.pumpUntil("the next question's answer", func() bool { return len(answers) == 1 })
	if a := <-answers; a.Action != mcp.ElicitDecline || b.h.m.dialogs.Len() != 0 {
		t.Errorf("a later question got %q with %d dialogs open: want it declined without a dialog", a.Action, b.h.m.dialogs.Len())
	}

	b.h.line(".mcp ask asker")
	ask(n + 1)
	b.waitDialog("elicit")
	b.h.keys("ctrl+d")
	if a := <-answers; a.Action != mcp.ElicitDecline {
		t.Errorf("after .mcp ask, the question was answered %q by the person's ctrl+d", a.Action)
	}
}

// The sampling dialog offers the same: a server's third sampling request
// in a row can be the last one the person sees.
func TestSamplingDialogOffersToDeclineEverythingAfterThreeRequests(t *testing.T) {
	b := newAskBench(t, Options{})
	errs := make(chan error, dialog.DeclineAllAfter)
	for range dialog.DeclineAllAfter {
		go func() {
			_, err := b.relay.Sample(context.Background(), "asker", sampleReq("again?"))
			errs <- err
		}()
	}
	b.pumpUntil("every request to arrive", func() bool { return b.h.m.dialogs.Len()+len(b.h.m.asks) == dialog.DeclineAllAfter })
	b.waitDialog("sampling")
	if v := b.h.view(); !strings.Contains(v, "ctrl+x declines this one") {
		t.Errorf("the sampling dialog does not offer to decline everything:\n%s", v)
	}
	b.h.keys("ctrl+x")
	for range dialog.DeclineAllAfter {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "declines every request from this server") {
			t.Errorf("the server heard %v, want that the user declines everything from it", err)
		}
	}
}
