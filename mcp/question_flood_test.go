package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// floodCall calls the question-flood fixture's tool and reads its tally.
func floodCall(ctx context.Context, rt *Runtime, tool string, args any) (floodTally, error) {
	b, _ := json.Marshal(map[string]any{"tool": tool, "arguments": args})
	out, err := rt.CallMeta(ctx, "mcp_invoke_question-flood", b)
	if err != nil {
		return floodTally{}, err
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
		return floodTally{}, fmt.Errorf("no tally in %s (%v)", out, err)
	}
	text := res.Content[0].Text
	var t floodTally
	return t, json.Unmarshal([]byte(text), &t)
}

// floodHeapBound is what a flood of questions may hold at its peak: the
// questions howl keeps (MaxPendingServerRequests) plus the transport's
// short-lived goroutine per question in flight. Before the bound, 100k
// unanswered questions held several hundred MB.
const floodHeapBound = 64 << 20

// floodSize is how many questions a flood test's server asks: 100k, or
// 10k under the race detector (slower by ten times) and with -short.
func floodSize() int {
	if raceEnabled || testing.Short() {
		return 10_000
	}
	return 100_000
}

// A server that asks 100k questions while the person answers none: howl
// keeps MaxPendingServerRequests of them and answers the rest at once with
// an error saying why, so every question gets an answer and memory stays
// flat instead of growing with each question.
func TestQuestionFloodWhileNobodyAnswersIsRefusedPastTheBoundWithFlatMemory(t *testing.T) {
	n := floodSize()
	for _, method := range []mcpgo.MCPMethod{mcpgo.MethodSamplingCreateMessage, mcpgo.MethodElicitationCreate} {
		t.Run(string(method), func(t *testing.T) {
			var mu sync.Mutex
			asked := 0
			// A person who never answers: each question waits until its
			// context ends (here: when the call that led to it does).
			elicit := func(ctx context.Context, _ string, _ ElicitRequest) (ElicitResponse, error) {
				mu.Lock()
				asked++
				mu.Unlock()
				<-ctx.Done()
				return ElicitResponse{Action: ElicitCancel}, nil
			}
			sample := func(ctx context.Context, _ string, _ mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
				mu.Lock()
				asked++
				mu.Unlock()
				<-ctx.Done()
				return nil, ctx.Err()
			}
			sc := fixture("question-flood")
			sc.Era = EraLegacy
			sc.Sampling = true
			notices := 0
			onEvent := func(e Event) {
				if e.Kind == EventStderr && strings.Contains(e.Line, "MaxPendingServerRequests") {
					mu.Lock()
					notices++
					mu.Unlock()
				}
			}
			rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Elicit: elicit, Sample: sample, OnEvent: onEvent, Spill: render.NewSpillStore(t.TempDir())})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			mem := mcptest.WatchMemory(4*floodHeapBound, cancel) // far past the bound: stop the flood rather than the machine
			began := time.Now()
			flood, err := floodCall(ctx, rt, "flood", floodArgs{Method: string(method), N: n, ReplyAt: n - MaxPendingServerRequests})
			took := time.Since(began)
			peak, gors := mem.End()
			if err != nil {
				t.Fatalf("flood: %v (peak heap+stacks %s, %d goroutines)", err, render.HumanBytes(int64(peak)), gors)
			}
			tally, err := floodCall(ctx, rt, "tally", struct{}{})
			if err != nil {
				t.Fatalf("tally: %v", err)
			}
			t.Logf("peak heap+stacks %s, %d goroutines; flood %+v; tally %+v", render.HumanBytes(int64(peak)), gors, flood, tally)
			if peak > floodHeapBound {
				t.Errorf("peak heap+stacks %s while flooded, want at most %s", render.HumanBytes(int64(peak)), render.HumanBytes(floodHeapBound))
			}
			if tally.Answered != n {
				t.Errorf("%d of %d questions answered", tally.Answered, n)
			}
			refused := tally.Outcomes["error -32000"]
			if refused != n-MaxPendingServerRequests {
				t.Errorf("%d questions refused past the bound, want %d: %+v", refused, n-MaxPendingServerRequests, tally)
			}
			if msg := tally.Errors["error -32000"]; !strings.Contains(msg, fmt.Sprint(MaxPendingServerRequests)) || !strings.Contains(msg, "MaxPendingServerRequests") {
				t.Errorf("the refusal says %q: want the bound and its name", msg)
			}
			mu.Lock()
			defer mu.Unlock()
			if asked != MaxPendingServerRequests {
				t.Errorf("the person was asked %d questions, want %d", asked, MaxPendingServerRequests)
			}
			// A line a minute: one for a flood that ends within the minute,
			// one more per minute a slow (loaded) machine takes.
			if most := 1 + int(took/refusalNoticeEvery); notices < 1 || notices > most {
				t.Errorf("the server's log got %d notices of the refusals in %s, want 1 to %d (a line a minute, not a line a request)", notices, took.Round(time.Second), most)
			}
		})
	}
}

// A 2026-07-28 server can ask several questions in one input-required
// result; mcp-go answers them all at once. Past MaxPendingServerRequests
// howl refuses, so the call fails with the reason instead of putting
// every question to the person. (More than MaxInputRequests in one result
// fail before any is asked: TestAResultAskingForTooManyInputsFails...)
func TestOneResultAskingMoreQuestionsThanMayWaitIsRefusedPastTheBound(t *testing.T) {
	var mu sync.Mutex
	waiting, peak := 0, 0
	tooMany := make(chan struct{})
	var once sync.Once
	elicit := func(ctx context.Context, _ string, _ ElicitRequest) (ElicitResponse, error) {
		mu.Lock()
		waiting++
		peak = max(peak, waiting)
		if waiting > MaxPendingServerRequests {
			once.Do(func() { close(tooMany) }) // the bound did not hold: end the wait
		}
		mu.Unlock()
		select {
		case <-ctx.Done():
		case <-tooMany:
		}
		mu.Lock()
		waiting--
		mu.Unlock()
		return ElicitResponse{Action: ElicitDecline}, nil
	}
	sc := fixture("question-flood")
	sc.Era = EraModern
	rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Elicit: elicit, Spill: render.NewSpillStore(t.TempDir())})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := rt.CallMeta(ctx, "mcp_invoke_question-flood", json.RawMessage(fmt.Sprintf(`{"tool":"ask_many","arguments":{"n":%d}}`, MaxInputRequests)))
	if peak > MaxPendingServerRequests {
		t.Errorf("the person had %d questions waiting at once, want at most %d", peak, MaxPendingServerRequests)
	}
	if err == nil && !strings.Contains(string(out), "MaxPendingServerRequests") {
		t.Errorf("the call = %s, want it to fail naming MaxPendingServerRequests", out)
	}
	if err != nil && !strings.Contains(err.Error(), "MaxPendingServerRequests") {
		t.Errorf("the call failed with %v, want the reason MaxPendingServerRequests", err)
	}
}

// Headless with no terminal, questions are declined at once. A server that
// asks 100k of them gets every answer, whether it reads them as they come
// or only once it has asked them all; memory stays flat. Before, each
// unread answer waited in a goroutine of its own (over 600 MB).
func TestQuestionFloodDeclinedHeadlessIsAllAnsweredWithFlatMemory(t *testing.T) {
	n := floodSize()
	decline := func(context.Context, string, mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
		return nil, errors.New("the user declined the sampling request")
	}
	for _, readAfter := range []bool{false, true} {
		for _, method := range []mcpgo.MCPMethod{mcpgo.MethodSamplingCreateMessage, mcpgo.MethodElicitationCreate} {
			t.Run(fmt.Sprintf("%s/read_after=%v", method, readAfter), func(t *testing.T) {
				sc := fixture("question-flood")
				sc.Era = EraLegacy
				sc.Sampling = true
				rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Elicit: ElicitDeclineAll, Sample: decline, Spill: render.NewSpillStore(t.TempDir())})
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				mem := mcptest.WatchMemory(4*floodHeapBound, cancel)
				tally, err := floodCall(ctx, rt, "flood", floodArgs{Method: string(method), N: n, ReadAfter: readAfter})
				peak, gors := mem.End()
				t.Logf("peak heap+stacks %s, %d goroutines; %+v", render.HumanBytes(int64(peak)), gors, tally.Outcomes)
				if err != nil {
					t.Fatalf("flood: %v (peak heap+stacks %s, %d goroutines)", err, render.HumanBytes(int64(peak)), gors)
				}
				if tally.Answered != n {
					t.Errorf("%d of %d questions answered", tally.Answered, n)
				}
				if peak > floodHeapBound {
					t.Errorf("peak heap+stacks %s while flooded, want at most %s", render.HumanBytes(int64(peak)), render.HumanBytes(floodHeapBound))
				}
			})
		}
	}
}

// Questions are bounded in bytes as well as in number: those of a server
// waiting on howl hold at most MaxPendingQuestionBytes of JSON. Of five
// 6 MiB questions nobody answers, two wait and three are refused at once
// with an error naming the bound; a question larger than the bound is
// refused even when none waits.
func TestQuestionsWaitingOnHowlAreBoundedInBytes(t *testing.T) {
	for _, method := range []mcpgo.MCPMethod{mcpgo.MethodSamplingCreateMessage, mcpgo.MethodElicitationCreate} {
		for _, c := range []struct{ n, size, kept int }{
			{5, 6 << 20, MaxPendingQuestionBytes / (6 << 20)},
			{1, MaxPendingQuestionBytes + 1<<20, 0},
		} {
			t.Run(fmt.Sprintf("%s/%dx%dMiB", method, c.n, c.size>>20), func(t *testing.T) {
				var mu sync.Mutex
				asked := 0
				wait := func(ctx context.Context) {
					mu.Lock()
					asked++
					mu.Unlock()
					<-ctx.Done()
				}
				elicit := func(ctx context.Context, _ string, _ ElicitRequest) (ElicitResponse, error) {
					wait(ctx)
					return ElicitResponse{Action: ElicitCancel}, nil
				}
				sample := func(ctx context.Context, _ string, _ mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
					wait(ctx)
					return nil, ctx.Err()
				}
				sc := fixture("question-flood")
				sc.Era = EraLegacy
				sc.Sampling = true
				rt := startReady(t, &Config{Servers: []ServerConfig{sc}}, RuntimeOptions{Elicit: elicit, Sample: sample, Spill: render.NewSpillStore(t.TempDir())})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				flood, err := floodCall(ctx, rt, "flood", floodArgs{Method: string(method), N: c.n, ReplyAt: c.n - c.kept, Size: c.size})
				if err != nil {
					t.Fatal(err)
				}
				if refused := flood.Outcomes["error -32000"]; refused != c.n-c.kept {
					t.Errorf("%d of %d questions refused, want %d: %+v", refused, c.n, c.n-c.kept, flood.Outcomes)
				}
				if msg := flood.Errors["error -32000"]; !strings.Contains(msg, "MaxPendingQuestionBytes") {
					t.Errorf("the refusal says %q: want the bound's name", msg)
				}
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
					mu.Lock()
					n := asked
					mu.Unlock()
					if n == c.kept || time.Now().After(deadline) {
						if n != c.kept {
							t.Errorf("the person was asked %d questions, want %d", n, c.kept)
						}
						break
					}
				}
			})
		}
	}
}
