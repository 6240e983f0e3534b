package demo

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// answering is a client that answers the demo's questions the way a test
// says, and keeps what it was asked.
type answering struct {
	mu      sync.Mutex
	elicit  func(mcp.ElicitationParams) *mcp.ElicitationResult
	asked   []mcp.ElicitationParams
	sampled []mcp.CreateMessageParams
}

func (a *answering) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params)
	a.mu.Unlock()
	return a.elicit(req.Params), nil
}

func (a *answering) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	a.sampled = append(a.sampled, req.CreateMessageParams)
	a.mu.Unlock()
	return &mcp.CreateMessageResult{Model: "scripted-1", StopReason: "endTurn",
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("Wolves howl at night.")}}, nil
}

func (a *answering) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///home/ada/project", Name: "project"}, {URI: "file:///tmp"}}}, nil
}

// connectAnswering connects a client in era e that offers elicitation,
// sampling and roots, all answered by a.
func connectAnswering(t *testing.T, e era, a *answering) *peer {
	opts := append([]client.ClientOption{client.WithElicitationHandler(a), client.WithSamplingHandler(a), client.WithRootsHandler(a)}, e.opts...)
	return connectDemo(t, opts...)
}

func accept(content map[string]any) func(mcp.ElicitationParams) *mcp.ElicitationResult {
	return func(mcp.ElicitationParams) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
	}
}

func TestBookTableAsksAFormAndReportsTheAnswerInBothEras(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			a := &answering{elicit: accept(map[string]any{
				"name": "Ada", "email": "ada@example.com", "date": "2026-12-24", "party_size": 4,
				"seating": "terrace", "dietary": []string{"vegan", "nut allergy"}, "newsletter": true,
			})}
			p := connectAnswering(t, e, a)
			res := callTool(t, p, BookTableTool, map[string]any{"restaurant": "Chez Loup"})
			want := "Booked (pretend) at Chez Loup: a table for 4 on 2026-12-24 for Ada, seating terrace. " +
				"Dietary needs: vegan, nut allergy. Confirmation to ada@example.com. Newsletter: yes."
			if res.IsError || textOf(t, res.Content[0]) != want {
				t.Fatalf("book_table = %+v\nwant text %q", res.Content, want)
			}
			if len(a.asked) != 1 {
				t.Fatalf("the client was asked %d times, want once", len(a.asked))
			}
			q := a.asked[0]
			if !strings.Contains(q.Message, "Chez Loup") {
				t.Errorf("the question %q does not name the restaurant", q.Message)
			}
			schema, _ := json.Marshal(q.RequestedSchema)
			for _, field := range []string{`"format":"email"`, `"format":"date"`, `"maximum":12`, `"oneOf"`, `"type":"array"`, `"type":"boolean"`} {
				if !strings.Contains(string(schema), field) {
					t.Errorf("the requested schema lacks %s: %s", field, schema)
				}
			}
		})
	}
}

func TestBookTableSaysWhenThePersonDeclinesOrCancels(t *testing.T) {
	for action, want := range map[mcp.ElicitationResponseAction]string{
		mcp.ElicitationResponseActionDecline: "You declined the form: no table booked.",
		mcp.ElicitationResponseActionCancel:  "You dismissed the form: no table booked.",
	} {
		a := &answering{elicit: func(mcp.ElicitationParams) *mcp.ElicitationResult {
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}
		}}
		res := callTool(t, connectAnswering(t, eras[0], a), BookTableTool, nil)
		if res.IsError || textOf(t, res.Content[0]) != want {
			t.Errorf("%s: book_table = %+v, want %q", action, res.Content, want)
		}
	}
}

func TestBookTableRejectsAnAnswerMissingRequiredFields(t *testing.T) {
	a := &answering{elicit: accept(map[string]any{"name": "Ada", "party_size": "four"})}
	res := callTool(t, connectAnswering(t, eras[0], a), BookTableTool, nil)
	if !res.IsError || !strings.Contains(textOf(t, res.Content[0]), `"four"`) {
		t.Errorf("book_table with a bad answer = %+v, want an error quoting it", res.Content)
	}
}

func TestSummarizeAsksTheClientsModelInBothEras(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			a := &answering{}
			p := connectAnswering(t, e, a)
			res := callTool(t, p, SummarizeTool, map[string]any{"text": "At night the wolves of the valley call to each other.", "max_tokens": 50})
			if res.IsError || textOf(t, res.Content[0]) != "Summary by scripted-1: Wolves howl at night." {
				t.Fatalf("summarize = %+v", res.Content)
			}
			if len(a.sampled) != 1 {
				t.Fatalf("the model was asked %d times, want once", len(a.sampled))
			}
			s := a.sampled[0]
			if s.MaxTokens != 50 || s.SystemPrompt == "" || len(s.Messages) != 1 {
				t.Errorf("sampling request = %+v, want max 50 tokens, a system prompt and one message", s)
			}
			if text, _ := json.Marshal(s.Messages[0].Content); !strings.Contains(string(text), "wolves of the valley") {
				t.Errorf("the sampled message %s does not carry the text", text)
			}
		})
	}
}

func TestListRootsListsTheClientsRootsInBothEras(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			res := callTool(t, connectAnswering(t, e, &answering{}), RootsTool, nil)
			want := "The client offers 2 root(s):\n- file:///home/ada/project (project)\n- file:///tmp"
			if res.IsError || textOf(t, res.Content[0]) != want {
				t.Errorf("list_roots = %+v, want %q", res.Content, want)
			}
		})
	}
}

// A client that offers none of the capabilities gets an error result that
// names the missing one, at once, in both eras.
func TestQuestionToolsSayWhatTheClientDoesNotOffer(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			for tool, want := range map[string]string{
				BookTableTool: `no "elicitation" capability`,
				SummarizeTool: `"sampling": true`,
				RootsTool:     `no "roots" capability`,
			} {
				res := callTool(t, p, tool, map[string]any{"text": "x"})
				if !res.IsError || !strings.Contains(textOf(t, res.Content[0]), want) {
					t.Errorf("%s without the capability = %+v, want an error containing %q", tool, res.Content, want)
				}
			}
		})
	}
}

func TestSummarizeChecksItsArguments(t *testing.T) {
	p := connectAnswering(t, eras[0], &answering{})
	for _, args := range []map[string]any{
		{"text": ""},
		{"text": strings.Repeat("x", SummarizeMaxText+1)},
		{"text": "ok", "max_tokens": 0},
	} {
		if res := callTool(t, p, SummarizeTool, args); !res.IsError {
			t.Errorf("summarize(%.40v) succeeded, want an argument error", args)
		}
	}
}
