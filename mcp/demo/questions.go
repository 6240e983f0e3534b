package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The tools here ask the client something mid-call: elicitation (a form for
// the person), sampling (a completion from the client's model) and roots.
// Each is written the 2026-07-28 way, returning an input-required result
// and finishing when the client retries with the answer; mcp-go turns that
// into the older server-initiated request for clients of earlier versions,
// so one handler serves both eras. Each checks the client's declared
// capabilities first and, when the client offers none, says so instead of
// failing mid-call.

// Limits of the summarize tool.
const (
	// SummarizeMaxTokens is the largest max_tokens the summarize tool accepts.
	SummarizeMaxTokens = 1000
	// SummarizeDefaultMaxTokens is summarize's max_tokens when none is given.
	SummarizeDefaultMaxTokens = 200
	// SummarizeMaxText is the largest text, in bytes, summarize sends.
	SummarizeMaxText = 16 << 10
)

// DefaultRestaurant is the book_table tool's restaurant when none is named.
const DefaultRestaurant = "The Howling Moon"

// bookingSchema is what book_table asks for: every kind of field an
// elicitation form can hold (strings with formats and lengths, an integer
// with bounds, a titled single choice, a multi-select, a boolean with a
// default).
const bookingSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Name", "description": "Who the table is for.", "minLength": 1, "maxLength": 80},
    "email": {"type": "string", "title": "Email", "description": "Where the confirmation goes.", "format": "email"},
    "date": {"type": "string", "title": "Date", "description": "The day, as YYYY-MM-DD.", "format": "date"},
    "party_size": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12, "default": 2},
    "seating": {"type": "string", "title": "Seating", "oneOf": [
      {"const": "indoor", "title": "Indoors"},
      {"const": "terrace", "title": "On the terrace"},
      {"const": "bar", "title": "At the bar"}
    ], "default": "indoor"},
    "dietary": {"type": "array", "title": "Dietary needs", "description": "Pick any that apply.",
      "items": {"type": "string", "enum": ["vegetarian", "vegan", "gluten-free", "nut allergy"]}},
    "newsletter": {"type": "boolean", "title": "Send me the newsletter", "default": false}
  },
  "required": ["name", "date", "party_size"]
}`

// booking is book_table's answer, as the form's schema describes it.
type booking struct {
	Name       string   `json:"name"`
	Email      string   `json:"email"`
	Date       string   `json:"date"`
	PartySize  float64  `json:"party_size"`
	Seating    string   `json:"seating"`
	Dietary    []string `json:"dietary"`
	Newsletter bool     `json:"newsletter"`
}

func (d *demoServer) addQuestionTools() {
	d.srv.AddTools(
		server.ServerTool{Tool: mcp.NewTool(BookTableTool,
			mcp.WithToolTitle("Book a table"),
			mcp.WithDescription("Asks the person, through an elicitation form, who the booking is for, the date, the party size, "+
				"seating, dietary needs and the newsletter, then reports the booking. Nothing is booked anywhere; it shows a client's form."),
			mcp.WithString("restaurant", mcp.Description("Named in the question."), mcp.DefaultString(DefaultRestaurant), mcp.MaxLength(80)),
			readOnlyTool,
		), Handler: bookTable},
		server.ServerTool{Tool: mcp.NewTool(SummarizeTool,
			mcp.WithToolTitle("Summarize with the client's model"),
			mcp.WithDescription("Asks the client's model, through sampling (sampling/createMessage), to summarize the text in one sentence. "+
				"The client should show the person the request first. In howl, sampling is off until the server's config entry says \"sampling\": true."),
			mcp.WithString("text", mcp.Required(), mcp.Description("The text to summarize."), mcp.MinLength(1), mcp.MaxLength(SummarizeMaxText)),
			mcp.WithInteger("max_tokens", mcp.Description("The most tokens the summary may use."),
				mcp.Min(1), mcp.Max(SummarizeMaxTokens), mcp.DefaultNumber(SummarizeDefaultMaxTokens)),
			readOnlyTool,
		), Handler: summarize},
		server.ServerTool{Tool: mcp.NewTool(RootsTool,
			mcp.WithToolTitle("List the client's roots"),
			mcp.WithDescription("Asks the client for its roots (roots/list), the directories it offers servers, and lists them. It reads none of them."),
			readOnlyTool,
		), Handler: listRoots},
	)
}

// clientCaps are the capabilities the client declared: per request from
// 2026-07-28 on, at initialize before.
func clientCaps(ctx context.Context) mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
		return *info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientCapabilities()
	}
	return mcp.ClientCapabilities{}
}

// notOffered is the isError result for a client that lacks a capability.
func notOffered(tool, capability, fix string) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf("%s: this client declared no %q capability, so the demo cannot ask it; %s", tool, capability, fix))
}

func bookTable(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	restaurant, bad := argsOf(req).str("restaurant", false, DefaultRestaurant, `{"restaurant": "Chez Loup"}`)
	if bad != nil {
		return bad, nil
	}
	if res := server.ElicitationResponse(req.Params.InputResponses, "booking"); res != nil {
		return bookingResult(restaurant, res), nil
	}
	if caps := clientCaps(ctx); caps.Elicitation == nil {
		return notOffered(BookTableTool, "elicitation", "use a client that can show the person a form"), nil
	}
	return server.NewInputRequestBuilder("").Elicit("booking", mcp.ElicitationParams{
		Message:         fmt.Sprintf("Book a table at %s: who is it for, when, and how many?", restaurant),
		RequestedSchema: json.RawMessage(bookingSchema),
	}).ToolResult(), nil
}

// bookingResult reports what the person answered.
func bookingResult(restaurant string, res *mcp.ElicitationResult) *mcp.CallToolResult {
	switch res.Action {
	case mcp.ElicitationResponseActionDecline:
		return mcp.NewToolResultText("You declined the form: no table booked.")
	case mcp.ElicitationResponseActionCancel:
		return mcp.NewToolResultText("You dismissed the form: no table booked.")
	case mcp.ElicitationResponseActionAccept:
	default:
		return mcp.NewToolResultError(fmt.Sprintf("%s: the client answered with action %q; want accept, decline or cancel", BookTableTool, res.Action))
	}
	raw, err := json.Marshal(res.Content)
	var b booking
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil || b.Name == "" || b.Date == "" || b.PartySize < 1 {
		return mcp.NewToolResultError(fmt.Sprintf("%s: the accepted form lacks name, date or party_size, or has the wrong types: got %s", BookTableTool, describe(res.Content)))
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Booked (pretend) at %s: a table for %d on %s for %s", restaurant, int(b.PartySize), b.Date, b.Name)
	if b.Seating != "" {
		fmt.Fprintf(&s, ", seating %s", b.Seating)
	}
	s.WriteString(".")
	if len(b.Dietary) > 0 {
		fmt.Fprintf(&s, " Dietary needs: %s.", strings.Join(b.Dietary, ", "))
	}
	if b.Email != "" {
		fmt.Fprintf(&s, " Confirmation to %s.", b.Email)
	}
	if b.Newsletter {
		s.WriteString(" Newsletter: yes.")
	}
	return mcp.NewToolResultText(s.String())
}

func summarize(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	text, bad := a.str("text", true, "", `{"text": "a long paragraph"}`)
	if bad != nil {
		return bad, nil
	}
	if text == "" || len(text) > SummarizeMaxText {
		return a.argError("text", fmt.Sprintf("1 to %d bytes of text", SummarizeMaxText), text, `{"text": "a long paragraph"}`), nil
	}
	maxTokens, bad := a.integer("max_tokens", SummarizeDefaultMaxTokens, 1, SummarizeMaxTokens, `{"max_tokens": 100}`)
	if bad != nil {
		return bad, nil
	}
	if res := server.SamplingResponse(req.Params.InputResponses, "summary"); res != nil {
		summary := samplingText(res.Content)
		if summary == "" {
			return mcp.NewToolResultError(fmt.Sprintf("%s: the client's model (%s) answered with no text", SummarizeTool, res.Model)), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("Summary by %s: %s", res.Model, summary)), nil
	}
	if caps := clientCaps(ctx); caps.Sampling == nil {
		return notOffered(SummarizeTool, "sampling", `in howl, add "sampling": true to this server's config entry and name a model`), nil
	}
	return server.NewInputRequestBuilder("").Sample("summary", mcp.CreateMessageParams{
		SystemPrompt: "You summarize text in one plain sentence.",
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser,
			Content: mcp.NewTextContent("Summarize this in one sentence:\n\n" + text)}},
		MaxTokens:      maxTokens,
		IncludeContext: "none",
	}).ToolResult(), nil
}

// samplingText is the text of a sampling answer's content, which arrives
// as a TextContent or, decoded generically, as a map.
func samplingText(content any) string {
	if tc, ok := content.(mcp.TextContent); ok {
		return tc.Text
	}
	raw, err := json.Marshal(content)
	if err != nil {
		return ""
	}
	var c struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Type != "text" {
		return ""
	}
	return c.Text
}

func listRoots(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if res := server.RootsResponse(req.Params.InputResponses, "roots"); res != nil {
		if len(res.Roots) == 0 {
			return mcp.NewToolResultText("The client offers no roots."), nil
		}
		var s strings.Builder
		fmt.Fprintf(&s, "The client offers %d root(s):", len(res.Roots))
		for _, r := range res.Roots {
			s.WriteString("\n- " + r.URI)
			if r.Name != "" {
				s.WriteString(" (" + r.Name + ")")
			}
		}
		return mcp.NewToolResultText(s.String()), nil
	}
	if caps := clientCaps(ctx); caps.Roots == nil {
		return notOffered(RootsTool, "roots", "use a client that offers its working directories as roots"), nil
	}
	return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
}
