package demo

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/assets"
)

// Limits of the slow tool, named in its error messages.
const (
	// SlowMaxDurationMS is the largest duration_ms the slow tool accepts.
	SlowMaxDurationMS = 60000
	// SlowMaxSteps is the largest steps the slow tool accepts.
	SlowMaxSteps = 100
	// SlowDefaultDurationMS is the slow tool's duration_ms when none is given.
	SlowDefaultDurationMS = 3000
	// SlowDefaultSteps is the slow tool's steps when none is given.
	SlowDefaultSteps = 5
)

// slowCancelled counts slow-tool runs that stopped because their context
// ended, in every demo server of the process.
var slowCancelled atomic.Int64

// SlowCancellations reports how many runs of the slow tool, in any demo
// server of this process, have stopped early because their request was
// cancelled. Tests read it before and after cancelling a call.
func SlowCancellations() int64 { return slowCancelled.Load() }

// readOnlyTool marks a tool that changes nothing, anywhere.
var readOnlyTool = mcp.WithToolAnnotation(mcp.ToolAnnotation{
	ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(false),
})

func (d *demoServer) addTools() {
	d.srv.AddTools(
		server.ServerTool{Tool: mcp.NewTool(EchoTool,
			mcp.WithToolTitle("Echo"),
			mcp.WithDescription("Returns the message exactly as given, as text."),
			mcp.WithString("message", mcp.Required(), mcp.Description("The text to send back.")),
			readOnlyTool,
		), Handler: echo},
		server.ServerTool{Tool: mcp.NewTool(AddTool,
			mcp.WithToolTitle("Add two numbers"),
			mcp.WithDescription("Adds a and b. The text result is the sum; the structured result is {\"sum\": number}."),
			mcp.WithNumber("a", mcp.Required(), mcp.Description("The first addend.")),
			mcp.WithNumber("b", mcp.Required(), mcp.Description("The second addend.")),
			mcp.WithRawOutputSchema(json.RawMessage(addOutputSchema)),
			readOnlyTool,
		), Handler: add},
		server.ServerTool{Tool: mcp.NewTool(SlowTool,
			mcp.WithToolTitle("Slow operation"),
			mcp.WithDescription("Waits duration_ms in equal steps. Sends notifications/progress after each step when the request has a progressToken, "+
				"logs each step at info level, and stops at once when the request is cancelled."),
			mcp.WithInteger("duration_ms", mcp.Description("Total run time in milliseconds."),
				mcp.Min(0), mcp.Max(SlowMaxDurationMS), mcp.DefaultNumber(SlowDefaultDurationMS)),
			mcp.WithInteger("steps", mcp.Description("How many steps (and progress notifications) to split the run into."),
				mcp.Min(1), mcp.Max(SlowMaxSteps), mcp.DefaultNumber(SlowDefaultSteps)),
			readOnlyTool,
		), Handler: d.slow},
		server.ServerTool{Tool: mcp.NewTool(ImageTool,
			mcp.WithToolTitle("Show an image"),
			mcp.WithDescription("Returns a 64x64 colour PNG (the one at "+PNGURI+") as image content, after a line of text."),
			readOnlyTool,
		), Handler: showImage},
		server.ServerTool{Tool: mcp.NewTool(BigTextTool,
			mcp.WithToolTitle("Big text"),
			mcp.WithDescription(fmt.Sprintf("Returns %d KiB of deterministic text: %d numbered lines of 100 bytes each. Use it to exercise paging of large results.",
				BigTextSize>>10, BigTextLines)),
			readOnlyTool,
		), Handler: bigTextTool},
		server.ServerTool{Tool: mcp.NewTool(StructuredTool,
			mcp.WithToolTitle("Structured result"),
			mcp.WithDescription("Returns a list of scored items as structuredContent matching the outputSchema, with the same data as JSON text for older clients."),
			mcp.WithInteger("count", mcp.Description("How many items to return."), mcp.Min(1), mcp.Max(len(itemNames)), mcp.DefaultNumber(3)),
			mcp.WithString("sort", mcp.Description("Sort by name (A to Z) or by score (highest first)."), mcp.Enum("name", "score"), mcp.DefaultString("name")),
			mcp.WithBoolean("include_tags", mcp.Description("Add a tags array to every item."), mcp.DefaultBool(false)),
			mcp.WithRawOutputSchema(json.RawMessage(structuredOutputSchema)),
			readOnlyTool,
		), Handler: structured},
		server.ServerTool{Tool: mcp.NewTool(FailTool,
			mcp.WithToolTitle("Always fail"),
			mcp.WithDescription("Always returns an error result (isError: true) carrying the message, to exercise error display."),
			mcp.WithString("message", mcp.Description("The error message to return."), mcp.DefaultString(defaultFailMessage)),
			readOnlyTool,
		), Handler: fail},
		server.ServerTool{Tool: mcp.NewTool(LinksTool,
			mcp.WithToolTitle("Links and embedded resources"),
			mcp.WithDescription("Returns a resource_link to the demo guide, the service configuration as an embedded text resource, and the PNG as an embedded blob resource."),
			readOnlyTool,
		), Handler: links},
		server.ServerTool{Tool: mcp.NewTool(DeleteNoteTool,
			mcp.WithToolTitle("Delete a note"),
			mcp.WithDescription("Marked destructive so a client can practise asking for confirmation, but it deletes nothing: the demo server never deletes anything."),
			mcp.WithString("id", mcp.Required(), mcp.Description("The note to delete, e.g. note-007 or "+NoteURI(7)+".")),
			mcp.WithToolAnnotation(mcp.ToolAnnotation{
				ReadOnlyHint: ptr(false), DestructiveHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false),
			}),
		), Handler: deleteNote},
		server.ServerTool{Tool: mcp.NewTool(AddNoteTool,
			mcp.WithToolTitle("Add a note"),
			mcp.WithDescription(fmt.Sprintf("Adds a Markdown note resource to this server (at most %d), which makes the server send notifications/resources/list_changed.", MaxExtraNotes)),
			mcp.WithString("title", mcp.Required(), mcp.Description("The note's title."), mcp.MinLength(1), mcp.MaxLength(maxNoteTitle)),
			mcp.WithString("text", mcp.Description("The note's body (Markdown).")),
			mcp.WithToolAnnotation(mcp.ToolAnnotation{
				ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), IdempotentHint: ptr(false), OpenWorldHint: ptr(false),
			}),
		), Handler: d.addNote},
		server.ServerTool{Tool: mcp.NewTool(TouchTool,
			mcp.WithToolTitle("Touch a resource"),
			mcp.WithDescription("Sends notifications/resources/updated for the URI, if this session subscribed to it (resources/subscribe); the content does not change."),
			mcp.WithString("uri", mcp.Required(), mcp.Description("The resource URI, e.g. "+LogURI+".")),
			readOnlyTool,
		), Handler: d.touch},
	)
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	msg, bad := argsOf(req).str("message", true, "", `{"message": "hello"}`)
	if bad != nil {
		return bad, nil
	}
	return mcp.NewToolResultText(msg), nil
}

const addOutputSchema = `{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`

// AddResult is the structured result of the add tool.
type AddResult struct {
	Sum float64 `json:"sum"`
}

func add(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	x, bad := a.num("a", `{"a": 2, "b": 3}`)
	if bad != nil {
		return bad, nil
	}
	y, bad := a.num("b", `{"a": 2, "b": 3}`)
	if bad != nil {
		return bad, nil
	}
	sum := x + y
	return mcp.NewToolResultStructured(AddResult{Sum: sum}, strconv.FormatFloat(sum, 'g', -1, 64)), nil
}

func (d *demoServer) slow(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	const example = `{"duration_ms": 2000, "steps": 4}`
	durMS, bad := a.integer("duration_ms", SlowDefaultDurationMS, 0, SlowMaxDurationMS, example)
	if bad != nil {
		return bad, nil
	}
	steps, bad := a.integer("steps", SlowDefaultSteps, 1, SlowMaxSteps, example)
	if bad != nil {
		return bad, nil
	}
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	d.log(ctx, mcp.LoggingLevelInfo, SlowTool, fmt.Sprintf("starting %d steps over %d ms", steps, durMS))
	step := time.Duration(durMS) * time.Millisecond / time.Duration(steps)
	timer := time.NewTimer(step)
	defer timer.Stop()
	for i := 1; i <= steps; i++ {
		if i > 1 {
			timer.Reset(step)
		}
		select {
		case <-ctx.Done():
			slowCancelled.Add(1)
			msg := fmt.Sprintf("cancelled after %d of %d steps", i-1, steps)
			d.log(ctx, mcp.LoggingLevelWarning, SlowTool, msg)
			return mcp.NewToolResultError("slow: " + msg), nil
		case <-timer.C:
		}
		if token != nil {
			_ = d.srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": token,
				"progress":      i,
				"total":         steps,
				"message":       fmt.Sprintf("step %d of %d", i, steps),
			})
		}
		d.log(ctx, mcp.LoggingLevelInfo, SlowTool, fmt.Sprintf("step %d of %d done", i, steps))
	}
	return mcp.NewToolResultText(fmt.Sprintf("slow: finished %d steps in %d ms", steps, durMS)), nil
}

// log sends a notifications/message to the calling session, if its level
// lets it through. Logging never fails a request.
func (d *demoServer) log(ctx context.Context, level mcp.LoggingLevel, logger, msg string) {
	_ = d.srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(level, logger, msg))
}

func pngData() ([]byte, error) { return fs.ReadFile(assets.Demo, "demo/moon.png") }

func showImage(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	png, err := pngData()
	if err != nil {
		return nil, fmt.Errorf("image: the embedded PNG is missing (%w): rebuild howl", err)
	}
	return mcp.NewToolResultImage("A 64x64 PNG: an amber moon over dark hills.", base64.StdEncoding.EncodeToString(png), "image/png"), nil
}

func bigTextTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(bigText()), nil
}

const structuredOutputSchema = `{
  "type": "object",
  "properties": {
    "count": {"type": "integer", "description": "How many items follow."},
    "sort": {"type": "string", "enum": ["name", "score"], "description": "The order of the items."},
    "items": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "integer"},
          "name": {"type": "string"},
          "score": {"type": "number", "minimum": 0, "maximum": 100},
          "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["id", "name", "score"]
      }
    }
  },
  "required": ["count", "sort", "items"]
}`

// StructuredResult is the structured result of the structured tool.
type StructuredResult struct {
	Count int              `json:"count"`
	Sort  string           `json:"sort"`
	Items []StructuredItem `json:"items"`
}

// StructuredItem is one item of a StructuredResult.
type StructuredItem struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags,omitempty"`
}

var itemNames = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
	"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"}

func structured(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	const example = `{"count": 3, "sort": "score", "include_tags": true}`
	count, bad := a.integer("count", 3, 1, len(itemNames), example)
	if bad != nil {
		return bad, nil
	}
	order, bad := a.oneOf("sort", "name", []string{"name", "score"}, example)
	if bad != nil {
		return bad, nil
	}
	tags, bad := a.boolean("include_tags", false, example)
	if bad != nil {
		return bad, nil
	}
	items := make([]StructuredItem, len(itemNames))
	for i, name := range itemNames {
		items[i] = StructuredItem{ID: i + 1, Name: name, Score: float64(40+(i*37)%60) + 0.5}
		if tags {
			items[i].Tags = []string{[]string{"red", "green", "blue"}[i%3], []string{"small", "large"}[i%2]}
		}
	}
	if order == "score" {
		slices.SortStableFunc(items, func(x, y StructuredItem) int { return cmp.Compare(y.Score, x.Score) })
	}
	res := StructuredResult{Count: count, Sort: order, Items: items[:count]}
	text, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("structured: encoding the result: %w", err)
	}
	return mcp.NewToolResultStructured(res, string(text)), nil
}

const defaultFailMessage = "this tool always fails, on purpose"

func fail(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	msg, bad := argsOf(req).str("message", false, defaultFailMessage, `{"message": "disk full"}`)
	if bad != nil {
		return bad, nil
	}
	return mcp.NewToolResultError("fail: " + msg), nil
}

func links(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	cfg, err := asset("config.json")()
	if err != nil {
		return nil, fmt.Errorf("links: the embedded config.json is missing (%w): rebuild howl", err)
	}
	png, err := pngData()
	if err != nil {
		return nil, fmt.Errorf("links: the embedded PNG is missing (%w): rebuild howl", err)
	}
	link := mcp.NewResourceLink(MarkdownURI, "readme.md", "What the demo server offers.", "text/markdown")
	link.Title = "Demo server guide"
	link.Size = ptr(assetSize("readme.md"))
	return &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewTextContent("Three ways to point at data: a link to read later, a text resource and a blob resource embedded here."),
		link,
		mcp.NewEmbeddedResource(contents(JSONURI, "application/json", cfg, false)),
		mcp.NewEmbeddedResource(contents(PNGURI, "image/png", png, true)),
	}}, nil
}

func deleteNote(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, bad := argsOf(req).str("id", true, "", `{"id": "note-007"}`)
	if bad != nil {
		return bad, nil
	}
	n := noteIndex(id)
	if n == 0 {
		return mcp.NewToolResultError(fmt.Sprintf("delete_note: no note %q: use an id from note-001 to note-%s (or its URI, e.g. %s)",
			id, noteNumber(NoteCount), NoteURI(7))), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("Nothing was deleted: %s is still there. The demo server never deletes anything; "+
		"this tool is marked destructive only so clients can practise asking first.", NoteURI(n))), nil
}

const maxNoteTitle = 200

func (d *demoServer) addNote(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	const example = `{"title": "Standup", "text": "Ship the pager fix."}`
	title, bad := a.str("title", true, "", example)
	if bad != nil {
		return bad, nil
	}
	title = strings.TrimSpace(title)
	if title == "" || len(title) > maxNoteTitle {
		return a.argError("title", fmt.Sprintf("a non-blank string of at most %d bytes", maxNoteTitle), title, example), nil
	}
	body, bad := a.str("text", false, "", example)
	if bad != nil {
		return bad, nil
	}
	n := d.extraNotes.Add(1)
	if n > MaxExtraNotes {
		d.extraNotes.Add(-1)
		return mcp.NewToolResultError(fmt.Sprintf("add_note: this server already holds %d added notes, the most it takes (MaxExtraNotes): restart it to start over", MaxExtraNotes)), nil
	}
	num := fmt.Sprintf("%03d", n)
	uri := NoteURIPrefix + "extra-" + num
	text := "# " + title + "\n\n" + body + "\n"
	d.srv.AddResource(mcp.Resource{
		URI: uri, Name: "extra-note-" + num, Title: title, MIMEType: "text/markdown",
		Description: "A note added with the add_note tool.", Size: ptr(int64(len(text))),
	}, func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: text}}, nil
	})
	link := mcp.NewResourceLink(uri, "extra-note-"+num, "The note just added.", "text/markdown")
	link.Title = title
	return &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewTextContent("Added " + uri + "; the server sent notifications/resources/list_changed."),
		link,
	}}, nil
}

func (d *demoServer) touch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	uri, bad := a.str("uri", true, "", `{"uri": "`+LogURI+`"}`)
	if bad != nil {
		return bad, nil
	}
	if !strings.HasPrefix(uri, "demo://") {
		return a.argError("uri", "a demo:// resource URI", uri, `{"uri": "`+LogURI+`"}`), nil
	}
	subs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithResourceSubscriptions)
	if !ok || !subs.IsSubscribedToResource(uri) {
		return mcp.NewToolResultText("Nothing sent: this session has not subscribed to " + uri +
			" (send resources/subscribe first; subscriptions are tracked on stdio sessions)."), nil
	}
	if err := d.srv.SendNotificationToClient(ctx, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("touch: sending notifications/resources/updated for %s failed: %v", uri, err)), nil
	}
	return mcp.NewToolResultText("Sent notifications/resources/updated for " + uri + "."), nil
}
