//lint:file-ignore SA1019 these tests drive the demo on both protocol eras, the legacy one (its handshake, logging/setLevel, resources/subscribe) on purpose
package demo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestEchoReturnsTheMessageUnchanged(t *testing.T) {
	p := connectDemo(t)
	msg := "héllo\nwörld 🐺"
	res := callTool(t, p, EchoTool, map[string]any{"message": msg})
	if res.IsError || len(res.Content) != 1 || textOf(t, res.Content[0]) != msg {
		t.Errorf("echo = %+v, want exactly %q", res, msg)
	}
}

func TestAddReturnsTheSumAsTextAndStructuredContent(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, AddTool, map[string]any{"a": 2, "b": 3.5})
	if res.IsError || textOf(t, res.Content[0]) != "5.5" {
		t.Errorf("add(2, 3.5) text = %+v, want 5.5", res.Content)
	}
	var got AddResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil || got.Sum != 5.5 {
		t.Errorf("add(2, 3.5) structuredContent = %s, want {\"sum\":5.5}", b)
	}
}

func TestBadArgumentsAreErrorResultsThatTeach(t *testing.T) {
	p := connectDemo(t)
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{AddTool, map[string]any{"a": "two", "b": 3}, []string{`"a"`, "a number", `"two"`, `{"a": 2, "b": 3}`}},
		{AddTool, map[string]any{"a": 1}, []string{`"b"`, "missing"}},
		{EchoTool, nil, []string{`"message"`, "missing", `{"message": "hello"}`}},
		{SlowTool, map[string]any{"steps": 0}, []string{`"steps"`, "from 1 to 100", "0"}},
		{SlowTool, map[string]any{"duration_ms": 1.5}, []string{`"duration_ms"`, "integer"}},
		{StructuredTool, map[string]any{"sort": "size"}, []string{`"sort"`, `"name"`, `"score"`}},
		{DeleteNoteTool, map[string]any{"id": "note-999"}, []string{"note-999", "note-001", "note-110"}},
		{TouchTool, map[string]any{"uri": "file:///etc/passwd"}, []string{"demo://"}},
	}
	for _, c := range cases {
		res := callTool(t, p, c.tool, c.args)
		if !res.IsError {
			t.Errorf("%s(%v) succeeded, want an isError result", c.tool, c.args)
			continue
		}
		text := textOf(t, res.Content[0])
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s(%v) error %q does not mention %s", c.tool, c.args, text, w)
			}
		}
	}
}

func TestImageToolReturnsADecodablePNG(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, ImageTool, nil)
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(mcp.ImageContent); ok {
			img = &ic
		}
	}
	if img == nil || img.MIMEType != "image/png" {
		t.Fatalf("image tool content = %+v, want an image/png block", res.Content)
	}
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("the image does not decode as PNG: %v", err)
	}
}

func TestBigTextIs300KiBOfNumberedLines(t *testing.T) {
	p := connectDemo(t)
	text := textOf(t, callTool(t, p, BigTextTool, nil).Content[0])
	if len(text) != BigTextSize {
		t.Errorf("big_text is %d bytes, want %d", len(text), BigTextSize)
	}
	lines := strings.SplitAfter(text, "\n")
	lines = lines[:len(lines)-1] // after the final newline
	if len(lines) != BigTextLines {
		t.Errorf("big_text has %d lines, want %d", len(lines), BigTextLines)
	}
	for i, l := range lines {
		if len(l) != 100 || !strings.HasPrefix(l, "line ") {
			t.Errorf("line %d = %q: want 100 bytes starting with \"line \"", i+1, l)
			break
		}
	}
	if !strings.HasPrefix(lines[41], "line 0042 of 3072:") {
		t.Errorf("line 42 = %q", lines[41])
	}
}

func TestStructuredToolMatchesItsOutputSchema(t *testing.T) {
	p := connectDemo(t)
	tools, err := p.ListTools(ctxT(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == StructuredTool && tool.RawOutputSchema == nil && tool.OutputSchema.Type != "object" {
			t.Errorf("structured tool lists no outputSchema")
		}
	}
	res := callTool(t, p, StructuredTool, map[string]any{"count": 4, "sort": "score", "include_tags": true})
	b, _ := json.Marshal(res.StructuredContent)
	var got StructuredResult
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	if got.Count != 4 || len(got.Items) != 4 || got.Sort != "score" || len(got.Items[0].Tags) == 0 {
		t.Errorf("structuredContent = %+v, want 4 tagged items sorted by score", got)
	}
	for i := 1; i < len(got.Items); i++ {
		if got.Items[i].Score > got.Items[i-1].Score {
			t.Errorf("items not sorted by score: %+v", got.Items)
		}
	}
	var fallback StructuredResult
	if err := json.Unmarshal([]byte(textOf(t, res.Content[0])), &fallback); err != nil || fallback.Count != 4 {
		t.Errorf("text fallback is not the same data as JSON: %v", err)
	}
}

func TestFailToolReturnsAnErrorResult(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, FailTool, map[string]any{"message": "disk full"})
	if !res.IsError || textOf(t, res.Content[0]) != "fail: disk full" {
		t.Errorf("fail = %+v, want isError with \"fail: disk full\"", res)
	}
}

func TestLinksToolReturnsALinkAndTwoEmbeddedResources(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, LinksTool, nil)
	var link *mcp.ResourceLink
	var text *mcp.TextResourceContents
	var blob *mcp.BlobResourceContents
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.ResourceLink:
			link = &c
		case mcp.EmbeddedResource:
			switch r := c.Resource.(type) {
			case mcp.TextResourceContents:
				text = &r
			case mcp.BlobResourceContents:
				blob = &r
			}
		}
	}
	if link == nil || link.URI != MarkdownURI {
		t.Errorf("resource_link = %+v, want one to %s", link, MarkdownURI)
	}
	if text == nil || text.URI != JSONURI || !json.Valid([]byte(text.Text)) {
		t.Errorf("embedded text resource = %+v, want %s", text, JSONURI)
	}
	if blob == nil || blob.MIMEType != "image/png" {
		t.Errorf("embedded blob resource = %+v, want the PNG", blob)
	}
}

func TestDeleteNoteDeletesNothing(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, DeleteNoteTool, map[string]any{"id": "note-007"})
	if res.IsError || !strings.Contains(textOf(t, res.Content[0]), "Nothing was deleted") {
		t.Errorf("delete_note = %+v", res)
	}
	data, _, _ := raw(t, readResource(t, p, NoteURI(7))[0])
	if !bytes.HasPrefix(data, []byte("# Note 007")) {
		t.Errorf("note 7 after delete_note = %.40q, want it intact", data)
	}
}

func TestSlowToolReportsProgressForItsToken(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			req := mcp.CallToolRequest{}
			req.Params.Name = SlowTool
			req.Params.Arguments = map[string]any{"duration_ms": 80, "steps": 4}
			req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
			res, err := p.CallTool(ctxT(t), req)
			if err != nil || res.IsError {
				t.Fatalf("slow: %v %+v", err, res)
			}
			got := p.events.method(string(mcp.MethodNotificationProgress))
			if len(got) != 4 {
				t.Fatalf("got %d progress notifications before the result, want 4: %+v", len(got), got)
			}
			for i, n := range got {
				f := n.Params.AdditionalFields
				if f["progressToken"] != "tok-1" || f["progress"] != float64(i+1) || f["total"] != float64(4) {
					t.Errorf("progress %d = %v, want token tok-1, progress %d of 4", i+1, f, i+1)
				}
			}
		})
	}
}

func TestSlowToolStopsWhenTheCallIsCancelled(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			if err := p.SetLevel(ctxT(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
				t.Fatal(err)
			}
			before := SlowCancellations()
			ctx, cancel := context.WithCancel(ctxT(t))
			defer cancel()
			go func() {
				p.events.waitFor(t, string(mcp.MethodNotificationProgress), "a first step", func(n []mcp.JSONRPCNotification) bool { return len(n) > 0 })
				cancel()
			}()
			req := mcp.CallToolRequest{}
			req.Params.Name = SlowTool
			req.Params.Arguments = map[string]any{"duration_ms": 10000, "steps": 100}
			req.Params.Meta = &mcp.Meta{ProgressToken: 7}
			start := time.Now()
			if _, err := p.CallTool(ctx, req); err == nil {
				t.Fatalf("slow returned normally, want a cancelled call")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("cancelled call took %v", d)
			}
			p.events.waitFor(t, string(mcp.MethodNotificationMessage), `a "cancelled after" log`, func(ns []mcp.JSONRPCNotification) bool {
				for _, n := range ns {
					if data, _ := n.Params.AdditionalFields["data"].(string); strings.HasPrefix(data, "cancelled after") {
						return true
					}
				}
				return false
			})
			if SlowCancellations() <= before {
				t.Errorf("SlowCancellations() = %d, want more than %d", SlowCancellations(), before)
			}
			if res := callTool(t, p, EchoTool, map[string]any{"message": "still here"}); textOf(t, res.Content[0]) != "still here" {
				t.Errorf("the server did not keep serving after a cancellation")
			}
		})
	}
}

func TestLogLevelFiltersSlowToolLogs(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			if err := p.SetLevel(ctxT(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelError}}); err != nil {
				t.Fatal(err)
			}
			callTool(t, p, SlowTool, map[string]any{"duration_ms": 0, "steps": 2})
			if got := p.events.method(string(mcp.MethodNotificationMessage)); len(got) != 0 {
				t.Errorf("at level error the slow tool logged %d messages: %+v", len(got), got)
			}
			if err := p.SetLevel(ctxT(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
				t.Fatal(err)
			}
			callTool(t, p, SlowTool, map[string]any{"duration_ms": 0, "steps": 2})
			got := p.events.method(string(mcp.MethodNotificationMessage))
			if len(got) != 3 || got[0].Params.AdditionalFields["level"] != "info" || got[0].Params.AdditionalFields["logger"] != SlowTool {
				t.Errorf("at level info: %+v, want 3 info lines from logger slow (start, 2 steps)", got)
			}
		})
	}
}

func TestAddNoteAnnouncesTheNewResource(t *testing.T) {
	p := connectDemo(t)
	res := callTool(t, p, AddNoteTool, map[string]any{"title": "Standup", "text": "Ship the pager fix."})
	if res.IsError {
		t.Fatalf("add_note: %+v", res)
	}
	p.events.waitFor(t, mcp.MethodNotificationResourcesListChanged, "list_changed", func(n []mcp.JSONRPCNotification) bool { return len(n) > 0 })
	list, err := p.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil || len(list.Resources) != ResourceCount+1 {
		t.Fatalf("after add_note: %d resources (%v), want %d", len(list.Resources), err, ResourceCount+1)
	}
	data, _, _ := raw(t, readResource(t, p, NoteURIPrefix+"extra-001")[0])
	if !strings.Contains(string(data), "Ship the pager fix.") {
		t.Errorf("the added note reads %q", data)
	}
}

func TestTouchNotifiesOnlySubscribedSessions(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			res := callTool(t, p, TouchTool, map[string]any{"uri": LogURI})
			if !strings.HasPrefix(textOf(t, res.Content[0]), "Nothing sent") {
				t.Errorf("touch before subscribing = %q", textOf(t, res.Content[0]))
			}
			if e.name == "legacy" {
				if err := p.Subscribe(ctxT(t), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: LogURI}}); err != nil {
					t.Fatal(err)
				}
			} else {
				stop, err := p.ListenAsync(ctxT(t), mcp.SubscriptionFilter{ResourceSubscriptions: []string{LogURI}}, func(err error) { t.Errorf("listen: %v", err) })
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
				p.events.waitFor(t, string(mcp.MethodNotificationSubscriptionsAcknowledged), "the listen acknowledgement",
					func(n []mcp.JSONRPCNotification) bool { return len(n) > 0 })
			}
			res = callTool(t, p, TouchTool, map[string]any{"uri": LogURI})
			if !strings.HasPrefix(textOf(t, res.Content[0]), "Sent") {
				t.Errorf("touch after subscribing = %q", textOf(t, res.Content[0]))
			}
			got := p.events.method(mcp.MethodNotificationResourceUpdated)
			if len(got) != 1 || got[0].Params.AdditionalFields["uri"] != LogURI {
				t.Errorf("resources/updated notifications = %+v, want one for %s", got, LogURI)
			}
		})
	}
}
