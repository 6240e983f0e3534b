package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

// rawTools are the tools serveRawTools lists on its first page, with
// annotations as some servers write them: echo says it is harmless
// (destructiveHint false), look says it is read-only, wipe says nothing
// and partial says only that it is not read-only. By the MCP defaults the
// last two may be destructive.
var rawTools = []any{
	map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"destructiveHint": false}},
	map[string]any{"name": "look", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
	map[string]any{"name": "wipe", "inputSchema": map[string]any{"type": "object"}},
	map[string]any{"name": "partial", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": false, "title": "Partial"}},
}

// serveRawTools is a server written without an SDK, listing rawTools.
// torn: its tool listing fails after that first page, so the page that
// would list nuke (destructive) fails. Every tool runs; nuke marks the
// guard fixture's file.
func serveRawTools(torn bool) error {
	in, out := bufio.NewScanner(os.Stdin), json.NewEncoder(os.Stdout)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
				Name   string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		answer := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch {
		case req.Method == "initialize":
			answer["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "torn", "version": "1"}}
		case req.Method == "tools/list" && req.Params.Cursor == "" && torn:
			answer["result"] = map[string]any{"tools": rawTools, "nextCursor": "2"}
		case req.Method == "tools/list" && req.Params.Cursor == "":
			answer["result"] = map[string]any{"tools": rawTools}
		case req.Method == "tools/list":
			answer["error"] = map[string]any{"code": -32603, "message": "the tool index is corrupt"}
		case req.Method == "tools/call":
			if req.Params.Name == "nuke" {
				f, err := os.OpenFile(os.Getenv(guardMarkEnv), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				if err != nil {
					return err
				}
				fmt.Fprintln(f, "nuke ran")
				f.Close()
			}
			answer["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ran " + req.Params.Name}}}
		default:
			answer["result"] = map[string]any{}
		}
		if err := out.Encode(answer); err != nil {
			return err
		}
	}
	return in.Err()
}

// A tool the server's listing missed (a page failed) is one howl cannot
// see the annotations of: a server:* rule does not cover it, and a rule
// naming it cannot check its pinned definition, so a headless run refuses
// it and the server never runs it. A listed tool is still allowed by the
// wildcard, and --allow naming the tool (the person's say for the run)
// still allows it.
func TestAToolAnIncompleteListingMissedIsNotCoveredByARule(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "nuke.mark")
	rt := startFixture(t, "x", map[string]string{fixtureEnv: "torn-listing", guardMarkEnv: mark}, mcp.RuntimeOptions{})
	ctx := context.Background()
	nuke := ToolCall{ID: "1", Name: "mcp_invoke_x", Arguments: `{"tool":"nuke","arguments":{}}`}
	echo := ToolCall{ID: "2", Name: "mcp_invoke_x", Arguments: `{"tool":"echo","arguments":{}}`}
	for _, c := range []struct {
		name  string
		perms Permissions
	}{
		{"--allow x:*", Permissions{AllowNow: []string{"x:*"}}},
		{"allow x:*", Permissions{Allow: []string{"x:*"}}},
		{"allow x:nuke, pinned", Permissions{Allow: []string{"x:nuke"}, Approvals: NewApprovals(filepath.Join(t.TempDir(), "approved.json"))}},
	} {
		decide := c.perms.Decider(rt, nil)
		if decision, err := decide(ctx, nuke); err == nil {
			t.Errorf("%s: the unlisted tool was %q", c.name, decision)
		} else if !strings.Contains(err.Error()+decision, "incomplete") {
			t.Errorf("%s: the refusal does not say the listing is incomplete: %q, %v", c.name, decision, err)
		}
		if strings.HasSuffix(c.name, "x:*") {
			if decision, err := decide(ctx, echo); err != nil {
				t.Errorf("%s: the listed, harmless tool was refused: %q, %v", c.name, decision, err)
			}
		}
	}
	if decision, err := (Permissions{AllowNow: []string{"x:nuke"}}).Decider(rt, nil)(ctx, nuke); err != nil {
		t.Errorf("--allow x:nuke names the tool: %q, %v", decision, err)
	}
	if n := nukeRuns(t, mark); n != 0 {
		t.Errorf("nuke ran %d times: deciding must not call it", n)
	}
}

// A tool that does not say destructiveHint false (no annotations, or only
// readOnlyHint false) may be destructive by the MCP spec's defaults, so a
// server:* rule does not cover it: the person is asked, told why. Tools
// that say they are harmless or read-only are still covered, and a rule
// naming the tool, or --allow naming it, still allows it.
func TestAToolWithoutDestructiveHintFalseIsNotCoveredByAWildcard(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "nuke.mark")
	rt := startFixture(t, "x", map[string]string{fixtureEnv: "plain-listing", guardMarkEnv: mark}, mcp.RuntimeOptions{})
	ctx := context.Background()
	call := func(tool string) ToolCall {
		return ToolCall{ID: tool, Name: "mcp_invoke_x", Arguments: `{"tool":"` + tool + `","arguments":{}}`}
	}
	for _, perms := range []Permissions{{AllowNow: []string{"x:*"}}, {Allow: []string{"x:*"}}, {ReadOnlyServers: []string{"x"}, Allow: []string{"x:*"}}} {
		var asked []string
		decide := perms.Decider(rt, func(_ context.Context, c ToolCall, why string) (string, error) {
			asked = append(asked, why)
			return "asked: denied", fmt.Errorf("denied")
		})
		for _, tool := range []string{"echo", "look"} {
			if decision, err := decide(ctx, call(tool)); err != nil {
				t.Errorf("%+v: %s says it is harmless, yet: %q, %v", perms, tool, decision, err)
			}
		}
		for _, tool := range []string{"wipe", "partial"} {
			if decision, err := decide(ctx, call(tool)); err == nil {
				t.Errorf("%+v: %s does not say destructiveHint false, yet the wildcard allowed it: %q", perms, tool, decision)
			}
		}
		if len(asked) != 2 || !strings.Contains(asked[0], "MCP default") || !strings.Contains(asked[1], "MCP default") {
			t.Errorf("%+v: the person is not told why the wildcard did not apply: %q", perms, asked)
		}
	}
	for _, perms := range []Permissions{{AllowNow: []string{"x:wipe"}}, {Allow: []string{"x:wipe"}}} {
		if decision, err := perms.Decider(rt, nil)(ctx, call("wipe")); err != nil {
			t.Errorf("%+v names wipe: %q, %v", perms, decision, err)
		}
	}
}

// catalogDown is the runtime whose catalog of every server cannot be had
// (a listing that failed outright).
type catalogDown struct{ *mcp.Runtime }

func (catalogDown) Catalog(context.Context, string, bool) (*mcp.Catalog, error) {
	return nil, fmt.Errorf("tools/list failed")
}

// When howl could not list the server's tools at all, the ask says so,
// not that the listing is incomplete, and a wildcard still does not cover
// the call.
func TestTheAskSaysWhenTheServersToolsCouldNotBeListedAtAll(t *testing.T) {
	rt := startFixture(t, "x", map[string]string{fixtureEnv: "plain-listing", guardMarkEnv: filepath.Join(t.TempDir(), "mark")}, mcp.RuntimeOptions{})
	var why string
	decide := Permissions{Allow: []string{"x:*"}}.Decider(catalogDown{rt}, func(_ context.Context, _ ToolCall, w string) (string, error) {
		why = w
		return "asked: denied", fmt.Errorf("denied")
	})
	if _, err := decide(context.Background(), ToolCall{ID: "1", Name: "mcp_invoke_x", Arguments: `{"tool":"echo","arguments":{}}`}); err == nil {
		t.Fatal("a wildcard covered a tool howl could not see")
	}
	if !strings.Contains(why, "could not list the server's tools") || strings.Contains(why, "incomplete") {
		t.Errorf("the ask says %q", why)
	}
}
