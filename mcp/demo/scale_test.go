package demo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestScaleModeServesEveryGeneratedItemInPagesOf100(t *testing.T) {
	const scale = 1000
	p := connect(t, New(Options{Scale: scale}))
	pages := listPages(t, p)
	total := ResourceCount + scale
	if want := (total + ScalePageSize - 1) / ScalePageSize; len(pages) != want {
		t.Errorf("%d pages, want %d", len(pages), want)
	}
	var names []string
	for i, page := range pages {
		if len(page) > ScalePageSize || (i < len(pages)-1 && len(page) != ScalePageSize) {
			t.Errorf("page %d holds %d resources, want %d", i+1, len(page), ScalePageSize)
		}
		for _, r := range page {
			names = append(names, r.Name)
		}
	}
	if len(names) != total || !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != total {
		t.Errorf("listed %d names (sorted %v), want %d unique names in order", len(names), slices.IsSorted(names), total)
	}
	data, _, _ := raw(t, readResource(t, p, "demo://scale/000042")[0])
	if !strings.HasPrefix(string(data), "Generated item 42 of 1000.") {
		t.Errorf("demo://scale/000042 reads %q", data)
	}
	readResource(t, p, NoteURI(1)) // registered resources still read

	ctx := ctxT(t)
	tools, err := p.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != ToolCount+scale/10 {
		t.Errorf("tools/list: %d tools (%v), want %d", len(tools.Tools), err, ToolCount+scale/10)
	}
	prompts, err := p.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != PromptCount+scale/10 {
		t.Errorf("prompts/list: %d prompts (%v), want %d", len(prompts.Prompts), err, PromptCount+scale/10)
	}
	if res := callTool(t, p, "gen_tool_00007", map[string]any{"text": "hi"}); textOf(t, res.Content[0]) != "gen_tool_00007: hi" {
		t.Errorf("gen_tool_00007 = %+v", res.Content)
	}
	if res, err := getPrompt(t, p, "gen_prompt_00003", nil); err != nil || len(res.Messages) != 1 {
		t.Errorf("gen_prompt_00003 = %+v, %v", res, err)
	}
	// Called items are now registered with mcp-go too; they must not be listed twice.
	tools, err = p.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != ToolCount+scale/10 {
		t.Errorf("tools/list after a call: %d tools (%v), want %d", len(tools.Tools), err, ToolCount+scale/10)
	}
	prompts, err = p.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != PromptCount+scale/10 {
		t.Errorf("prompts/list after a get: %d prompts (%v), want %d", len(prompts.Prompts), err, PromptCount+scale/10)
	}
	var toolNames []string
	for _, tool := range tools.Tools {
		toolNames = append(toolNames, tool.Name)
	}
	if !slices.IsSorted(toolNames) || len(slices.Compact(toolNames)) != ToolCount+scale/10 {
		t.Errorf("tool names are not unique and in name order")
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "gen_tool_99999"
	if _, err := p.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("calling a generated tool beyond Scale/10: err = %v, want not found", err)
	}
	got := completeArg(t, p, mcp.ResourceReference{Type: "ref/resource", URI: ScaleTemplate}, "n", "00004")
	if len(got) != 10 || got[0] != "000040" || got[9] != "000049" {
		t.Errorf("completing n=00004 = %v, want 000040..000049", got)
	}
}

func TestScaleModeStillAnnouncesAddedNotes(t *testing.T) {
	p := connect(t, New(Options{Scale: 250}))
	callTool(t, p, AddNoteTool, map[string]any{"title": "Late"})
	list, err := p.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil || len(list.Resources) != ResourceCount+250+1 {
		t.Errorf("after add_note in scale mode: %d resources (%v), want %d", len(list.Resources), err, ResourceCount+251)
	}
}

func TestScale100000StartsFastAndListsEveryPage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("lists 100 000 resources: run without -short and -race")
	}
	const scale = 100000
	start := time.Now()
	srv := New(Options{Scale: scale})
	built := time.Since(start)
	p := connect(t, srv)
	start = time.Now()
	pages := listPages(t, p)
	n := 0
	for _, page := range pages {
		n += len(page)
	}
	t.Logf("Scale=%d: New took %v; listing %d resources in %d pages took %v", scale, built, n, len(pages), time.Since(start))
	if n != ResourceCount+scale {
		t.Errorf("listed %d resources, want %d", n, ResourceCount+scale)
	}
	start = time.Now()
	tools, err := p.ListTools(ctxT(t), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != ToolCount+scale/10 {
		t.Errorf("tools/list: %d tools (%v), want %d", len(tools.Tools), err, ToolCount+scale/10)
	}
	tookTools := time.Since(start)
	start = time.Now()
	prompts, err := p.ListPrompts(ctxT(t), mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != PromptCount+scale/10 {
		t.Errorf("prompts/list: %d prompts (%v), want %d", len(prompts.Prompts), err, PromptCount+scale/10)
	}
	t.Logf("listing %d tools took %v, %d prompts %v", len(tools.Tools), tookTools, len(prompts.Prompts), time.Since(start))
}
