package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A question whose asking request ends first is withdrawn with
// notifications/cancelled naming its id; a garbled answer is an error, not
// a hang.
func TestAskerWithdrawsAndRejectsGarbledAnswers(t *testing.T) {
	lines := make(chan []byte, 4)
	a := &asker{pending: map[string]chan askResponse{}, send: func(b []byte) { lines <- b }}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.ask(ctx, string(mcp.MethodListRoots), struct{}{}, &mcp.ListRootsResult{}) }()
	var req struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(<-lines, &req); err != nil || !strings.HasPrefix(req.ID, askIDPrefix) {
		t.Fatalf("the request's id %q (%v) lacks the prefix %q", req.ID, err, askIDPrefix)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("ask after cancel returned %v, want context.Canceled", err)
	}
	withdrawn := string(<-lines)
	if !strings.Contains(withdrawn, `"notifications/cancelled"`) || !strings.Contains(withdrawn, `"requestId":"`+req.ID+`"`) {
		t.Errorf("the withdrawal %s does not cancel request %s", withdrawn, req.ID)
	}
	if a.answer(`"`+req.ID+`"`, []byte(`{"jsonrpc":"2.0","id":"`+req.ID+`","result":{}}`)) {
		t.Error("a late answer to a withdrawn request was taken")
	}

	go func() {
		done <- a.ask(context.Background(), string(mcp.MethodListRoots), struct{}{}, &mcp.ListRootsResult{})
	}()
	if err := json.Unmarshal(<-lines, &req); err != nil {
		t.Fatal(err)
	}
	if !a.answer(`"`+req.ID+`"`, []byte(`{"jsonrpc":"2.0","id":"`+req.ID+`"}`)) {
		t.Fatal("the answer to a pending request was not taken")
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "neither a result nor an error") {
		t.Errorf("a response with neither result nor error gave %v", err)
	}
}

// A client replacing its subscriptions/listen stream opens the new one
// before the old one's clean-up runs on the server: the old stream's end
// must leave the new stream's filter and resource subscriptions in force.
// (Before, a single filter field was wiped and the URI unsubscribed, so
// updates the new stream asked for were dropped now and then.)
func TestAReplacedListenStreamsEndKeepsTheNewOnesFilter(t *testing.T) {
	s := newStdioSession()
	old := mcp.SubscriptionFilter{ToolsListChanged: true}
	replacement := mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"demo://a"}}
	// The old stream opens.
	s.SetSubscriptionFilter(old)
	// The new stream opens and subscribes its URI...
	s.SetSubscriptionFilter(replacement)
	s.SubscribeToResource("demo://a")
	// ...and only then does the old stream's clean-up run.
	s.SetSubscriptionFilter(mcp.SubscriptionFilter{})
	if f, ok := s.SubscriptionFilter(); !ok || len(f.ResourceSubscriptions) != 1 {
		t.Fatalf("after the old stream ended the filter is %+v (%v), want the new stream's", f, ok)
	}
	// A URI both streams named survives the old one's unsubscribe.
	s.SubscribeToResource("demo://b") // the old stream's
	s.SubscribeToResource("demo://b") // the new stream's
	s.UnsubscribeFromResource("demo://b")
	if !s.IsSubscribedToResource("demo://a") || !s.IsSubscribedToResource("demo://b") {
		t.Fatalf("subscriptions after the old stream's clean-up: %v", s.SubscribedResources())
	}
	// When the last stream ends, nothing is left.
	s.SetSubscriptionFilter(mcp.SubscriptionFilter{})
	s.UnsubscribeFromResource("demo://a")
	s.UnsubscribeFromResource("demo://b")
	if _, ok := s.SubscriptionFilter(); ok || len(s.SubscribedResources()) != 0 {
		t.Errorf("after every stream ended: filter still set or %v subscribed", s.SubscribedResources())
	}
}
