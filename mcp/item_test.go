package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
)

// requestLog counts the requests a runtime sent, by method, from traces.
type requestLog struct {
	mu      sync.Mutex
	methods map[string]int
}

func (l *requestLog) add(e Event) {
	if e.Kind != EventTrace || e.Trace.Incoming {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.methods == nil {
		l.methods = map[string]int{}
	}
	l.methods[e.Trace.Method]++
}

// take returns the counts so far and starts again.
func (l *requestLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.methods
	l.methods = nil
	return m
}

// scaleRuntime starts the demo with 2,000 generated resources and 200
// generated tools and prompts (pages of 100), tracing every request.
func scaleRuntime(t *testing.T) (*Runtime, *requestLog) {
	t.Helper()
	log := &requestLog{}
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo-scale")}}, RuntimeOptions{CacheDir: t.TempDir(), OnEvent: log.add})
	t.Cleanup(func() { rt.Close() })
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt.SetTracing(true)
	return rt, log
}

func scaleCall(t *testing.T, rt *Runtime, fn string, args any) ([]byte, error) {
	t.Helper()
	b, _ := json.Marshal(args)
	return rt.CallMeta(context.Background(), fn+"_demo-scale", b)
}

func TestReadingOneResourceListsNothing(t *testing.T) {
	rt, log := scaleRuntime(t)
	if _, err := scaleCall(t, rt, "mcp_read", map[string]any{"uri": demo.MarkdownURI}); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); len(got) != 1 || got["resources/read"] != 1 {
		t.Errorf("a read of one resource sent %v; want one resources/read and no listing", got)
	}
}

func TestCallingOneToolListsToolsOnlyAsFarAsThatTool(t *testing.T) {
	rt, log := scaleRuntime(t)
	echo := map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": "hi"}}
	if _, err := scaleCall(t, rt, "mcp_invoke", echo); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); len(got) != 2 || got["tools/list"] != 1 || got["tools/call"] != 1 {
		t.Errorf("calling %s (on the first page of tools) sent %v; want one tools/list page and the call", demo.EchoTool, got)
	}
	// Its schema is still checked: a wrong type is refused before the server is asked.
	_, err := scaleCall(t, rt, "mcp_invoke", map[string]any{"tool": demo.EchoTool, "arguments": map[string]any{"message": 3}})
	if err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("a number for a string argument: %v", err)
	}
	if got := log.take(); len(got) != 0 {
		t.Errorf("the second lookup of %s sent %v; want nothing (listed already)", demo.EchoTool, got)
	}
	// A tool further on continues the listing from where it stopped.
	last := map[string]any{"tool": "gen_tool_00200", "arguments": map[string]any{"text": "x"}}
	if _, err := scaleCall(t, rt, "mcp_invoke", last); err != nil {
		t.Fatal(err)
	}
	if got := log.take(); got["tools/list"] != 2 || got["resources/list"]+got["prompts/list"]+got["resources/templates/list"] != 0 {
		t.Errorf("calling the last tool after the first sent %v; want the two remaining tools/list pages only", got)
	}
}

func TestCallingAToolThatIsNotThereListsToolsOnceAndSuggests(t *testing.T) {
	rt, log := scaleRuntime(t)
	_, err := scaleCall(t, rt, "mcp_invoke", map[string]any{"tool": "ech"})
	if err == nil || !strings.Contains(err.Error(), `did you mean "echo"`) {
		t.Fatalf("an unknown tool: %v", err)
	}
	first := log.take()
	_, _ = scaleCall(t, rt, "mcp_invoke", map[string]any{"tool": "ech"})
	if again := log.take(); len(again) != 0 || first["tools/list"] != 3 || len(first) != 1 {
		t.Errorf("an unknown tool sent %v, then %v again; want the 3 pages of tools once, nothing else", first, again)
	}
}

// TestGettingAPromptListsNothingUntilTheServerRefuses: a prompt is asked
// for straight away, wherever it is in the listing; only a refusal lists
// prompts (and nothing else) to say why, and what that listed is kept.
func TestGettingAPromptListsNothingUntilTheServerRefuses(t *testing.T) {
	rt, log := scaleRuntime(t)
	for _, name := range []string{demo.CodeReviewPrompt, "gen_prompt_00200"} {
		if _, err := scaleCall(t, rt, "mcp_prompt", map[string]any{"prompt": name, "arguments": map[string]any{"language": "go"}}); err != nil {
			t.Fatal(err)
		}
		if got := log.take(); len(got) != 1 || got["prompts/get"] != 1 {
			t.Errorf("getting %s sent %v; want one prompts/get and no listing", name, got)
		}
	}
	_, err := scaleCall(t, rt, "mcp_prompt", map[string]any{"prompt": demo.CodeReviewPrompt})
	if err == nil || !strings.Contains(err.Error(), "missing required arguments") || !strings.Contains(err.Error(), `"language" (`) {
		t.Fatalf("a prompt without its required argument: %v", err)
	}
	if got := log.take(); len(got) != 2 || got["prompts/get"] != 1 || got["prompts/list"] == 0 {
		t.Errorf("a refused prompt sent %v; want the prompts/get, then prompts/list only", got)
	}
	// Now its declaration is held: the same mistake is caught before the server is asked.
	if _, err := scaleCall(t, rt, "mcp_prompt", map[string]any{"prompt": demo.CodeReviewPrompt}); err == nil {
		t.Fatal("the second try without the argument was not refused")
	}
	if got := log.take(); len(got) != 0 {
		t.Errorf("the second try without the argument sent %v; want nothing", got)
	}
	_, err = scaleCall(t, rt, "mcp_prompt", map[string]any{"prompt": "code_revie"})
	if err == nil || !strings.Contains(err.Error(), `did you mean "code_review"`) {
		t.Errorf("a misspelt prompt: %v", err)
	}
}
