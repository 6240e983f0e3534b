package demo

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestGreetingTakesNoArguments(t *testing.T) {
	p := connectDemo(t)
	res, err := getPrompt(t, p, GreetingPrompt, nil)
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("greeting = %+v, %v; want one user message", res, err)
	}
	list, _ := p.ListPrompts(ctxT(t), mcp.ListPromptsRequest{})
	for _, pr := range list.Prompts {
		if pr.Name == GreetingPrompt && len(pr.Arguments) != 0 {
			t.Errorf("greeting lists arguments %+v", pr.Arguments)
		}
	}
}

func TestCodeReviewUsesItsArgumentsAndRequiresLanguage(t *testing.T) {
	p := connectDemo(t)
	list, _ := p.ListPrompts(ctxT(t), mcp.ListPromptsRequest{})
	for _, pr := range list.Prompts {
		if pr.Name != CodeReviewPrompt {
			continue
		}
		if len(pr.Arguments) != 2 || pr.Arguments[0].Name != "language" || !pr.Arguments[0].Required || pr.Arguments[1].Required {
			t.Errorf("code_review arguments = %+v, want required language and optional focus", pr.Arguments)
		}
	}
	res, err := getPrompt(t, p, CodeReviewPrompt, map[string]string{"language": "rust", "focus": "security"})
	if err != nil {
		t.Fatal(err)
	}
	first := textOf(t, res.Messages[0].Content)
	if !strings.Contains(first, "rust") || !strings.Contains(first, "security") || len(res.Messages) != 2 {
		t.Errorf("code_review(rust, security) = %+v", res.Messages)
	}
	if _, err := getPrompt(t, p, CodeReviewPrompt, nil); err == nil || !strings.Contains(err.Error(), `"language"`) {
		t.Errorf("code_review without language: err = %v, want one naming the language argument", err)
	}
}

func TestConversationAlternatesUserAndAssistant(t *testing.T) {
	p := connectDemo(t)
	res, err := getPrompt(t, p, ConversationPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var roles []mcp.Role
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	want := []mcp.Role{mcp.RoleUser, mcp.RoleAssistant, mcp.RoleUser, mcp.RoleAssistant, mcp.RoleUser}
	if !slices.Equal(roles, want) {
		t.Errorf("conversation roles = %v, want %v", roles, want)
	}
}

func TestBangAndDotPromptsAreTextThatLooksLikeCommands(t *testing.T) {
	p := connectDemo(t)
	for name, want := range map[string]string{BangPrompt: BangText, DotPrompt: DotText} {
		res, err := getPrompt(t, p, name, nil)
		if err != nil || len(res.Messages) != 1 {
			t.Fatalf("%s = %+v, %v", name, res, err)
		}
		if got := textOf(t, res.Messages[0].Content); got != want {
			t.Errorf("%s text = %q, want %q", name, got, want)
		}
	}
	if !strings.HasPrefix(BangText, "!") || !strings.HasPrefix(DotText, ".") {
		t.Errorf("BangText must start with '!' and DotText with '.'")
	}
}

func TestWithResourceEmbedsTheMarkdownGuide(t *testing.T) {
	p := connectDemo(t)
	res, err := getPrompt(t, p, WithResourcePrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range res.Messages {
		er, ok := m.Content.(mcp.EmbeddedResource)
		if !ok {
			continue
		}
		tr, ok := er.Resource.(mcp.TextResourceContents)
		found = ok && tr.URI == MarkdownURI && tr.MIMEType == "text/markdown" && strings.HasPrefix(tr.Text, "# ")
	}
	if !found {
		t.Errorf("with_resource messages = %+v, want an embedded %s", res.Messages, MarkdownURI)
	}
}

func completeArg(t *testing.T, p *peer, ref any, arg, value string) []string {
	t.Helper()
	req := mcp.CompleteRequest{}
	req.Params.Ref = ref
	req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
	res, err := p.Complete(ctxT(t), req)
	if err != nil {
		t.Fatalf("completing %s=%q for %+v: %v", arg, value, ref, err)
	}
	if res.Completion.Total != len(res.Completion.Values) {
		t.Errorf("completion total %d for %d values", res.Completion.Total, len(res.Completion.Values))
	}
	return res.Completion.Values
}

func TestCompletionFiltersPromptArgumentsAndTemplateVariablesByPrefix(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			review := mcp.PromptReference{Type: "ref/prompt", Name: CodeReviewPrompt}
			logs := mcp.ResourceReference{Type: "ref/resource", URI: LogTemplate}
			people := mcp.ResourceReference{Type: "ref/resource", URI: UserTemplate}
			cases := []struct {
				ref        any
				arg, value string
				want       []string
			}{
				{review, "language", "py", []string{"python"}},
				{review, "language", "J", []string{"java", "javascript"}},
				{review, "language", "", reviewLanguages},
				{review, "focus", "te", []string{"tests"}},
				{review, "nope", "", []string{}},
				{logs, "date", "2025-06-1", []string{"2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14"}},
				{people, "id", "r", []string{"radia"}},
				{people, "id", "zz", []string{}},
			}
			for _, c := range cases {
				if got := completeArg(t, p, c.ref, c.arg, c.value); !slices.Equal(got, c.want) {
					t.Errorf("complete %s=%q on %+v = %v, want %v", c.arg, c.value, c.ref, got, c.want)
				}
			}
		})
	}
}
