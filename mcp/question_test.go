package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/howl-mcp/howl/render"
)

// A server's question belongs to the request howl made: when that request
// is cancelled, the question's context ends, so a dialog asking the person
// closes instead of waiting for an answer nobody reads.
func TestQuestionEndsWhenTheRequestThatLedToItIsCancelled(t *testing.T) {
	asked := make(chan struct{})
	ended := make(chan error, 1)
	elicit := func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error) {
		close(asked)
		select {
		case <-ctx.Done():
			ended <- ctx.Err()
		case <-time.After(20 * time.Second):
			ended <- errors.New("still asking 20s after the request was cancelled")
		}
		return ElicitResponse{Action: ElicitCancel}, nil
	}
	sc := fixture("asker")
	sc.Era = EraLegacy
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Elicit: elicit, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(ctx, "mcp_invoke_asker", json.RawMessage(`{"tool":"ask"}`))
		done <- err
	}()
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("the server never asked")
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the question's context: %v, want cancelled", err)
	}
	if err := <-done; err == nil {
		t.Error("the cancelled call succeeded")
	}
}
