package demo

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestInitializeAdvertisesEveryCapability(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			p := connectDemo(t, e.opts...)
			if modern := mcp.IsModernProtocol(p.ProtocolVersion()); modern != (e.name == "modern") {
				t.Errorf("negotiated protocol %q in the %s era", p.ProtocolVersion(), e.name)
			}
			caps := p.init.Capabilities
			if caps.Tools == nil || caps.Prompts == nil || caps.Logging == nil || caps.Completions == nil {
				t.Errorf("capabilities %+v: want tools, prompts, logging and completions", caps)
			}
			if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
				t.Errorf("resources capability %+v: want subscribe and listChanged", caps.Resources)
			}
			if p.init.Instructions != Instructions {
				t.Errorf("instructions = %q, want %q", p.init.Instructions, Instructions)
			}
			if info := p.init.ServerInfo; info.Name != Name || info.Version != Version || info.Title != Title {
				t.Errorf("serverInfo = %+v, want name %q, version %q, title %q", info, Name, Version, Title)
			}
		})
	}
}

func TestListsEveryKindWithTheDocumentedCounts(t *testing.T) {
	p := connectDemo(t)
	ctx := ctxT(t)
	tools, err := p.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != ToolCount {
		t.Errorf("tools/list: %d tools, err %v; want %d", len(tools.Tools), err, ToolCount)
	}
	prompts, err := p.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != PromptCount {
		t.Errorf("prompts/list: %d prompts, err %v; want %d", len(prompts.Prompts), err, PromptCount)
	}
	templates, err := p.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(templates.ResourceTemplates) != TemplateCount {
		t.Errorf("resources/templates/list: %d templates, err %v; want %d", len(templates.ResourceTemplates), err, TemplateCount)
	}
	resources, err := p.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || len(resources.Resources) != ResourceCount {
		t.Errorf("resources/list: %d resources, err %v; want %d", len(resources.Resources), err, ResourceCount)
	}
	if ResourceCount < 120 {
		t.Errorf("ResourceCount = %d, the demo promises at least 120", ResourceCount)
	}
}

// listPages follows resources/list cursors by hand and returns each page.
func listPages(t *testing.T, p *peer) [][]mcp.Resource {
	t.Helper()
	var pages [][]mcp.Resource
	req := mcp.ListResourcesRequest{}
	for {
		res, err := p.ListResourcesByPage(ctxT(t), req)
		if err != nil {
			t.Fatalf("resources/list page %d: %v", len(pages)+1, err)
		}
		pages = append(pages, res.Resources)
		if res.NextCursor == "" {
			return pages
		}
		if len(pages) > 10000 {
			t.Fatalf("resources/list: more than 10000 pages, the cursor does not advance")
		}
		req.Params.Cursor = res.NextCursor
	}
}

func TestResourcesArePagedBy50AndEveryPageIsReachable(t *testing.T) {
	p := connectDemo(t)
	pages := listPages(t, p)
	wantPages := (ResourceCount + PageSize - 1) / PageSize
	if len(pages) != wantPages {
		t.Errorf("got %d pages, want %d (%d resources, %d a page)", len(pages), wantPages, ResourceCount, PageSize)
	}
	var byPage []mcp.Resource
	for i, page := range pages {
		if len(page) > PageSize || (i < len(pages)-1 && len(page) != PageSize) {
			t.Errorf("page %d holds %d resources; want %d on every page but the last", i+1, len(page), PageSize)
		}
		byPage = append(byPage, page...)
	}
	all, err := p.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(byPage, all.Resources, func(a, b mcp.Resource) bool { return a.URI == b.URI }) {
		t.Errorf("ListResources (%d) and the pages followed by hand (%d) differ", len(all.Resources), len(byPage))
	}
	names, uris := map[string]bool{}, map[string]bool{}
	for _, r := range byPage {
		if names[r.Name] || uris[r.URI] {
			t.Errorf("duplicate name %q or URI %q: mcp-go pages by name and would skip one", r.Name, r.URI)
		}
		names[r.Name], uris[r.URI] = true, true
	}
	for _, uri := range []string{LogURI, JSONURI, MarkdownURI, GoSourceURI, PNGURI, MislabeledURI, BinaryURI, UnicodeURI,
		EscapesURI, CSVURI, EmptyURI, UntypedURI, BrokenURI, WelcomeURI, AssistantGuideURI, NoteURI(1), NoteURI(NoteCount)} {
		if !uris[uri] {
			t.Errorf("%s is not listed", uri)
		}
	}
}

func TestEveryListedItemHasATitleAndDescription(t *testing.T) {
	p := connectDemo(t)
	ctx := ctxT(t)
	resources, _ := p.ListResources(ctx, mcp.ListResourcesRequest{})
	for _, r := range resources.Resources {
		if r.Title == "" || r.Description == "" {
			t.Errorf("resource %s: title %q, description %q; want both", r.URI, r.Title, r.Description)
		}
	}
	templates, _ := p.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	for _, tm := range templates.ResourceTemplates {
		if tm.Title == "" || tm.Description == "" || tm.MIMEType == "" {
			t.Errorf("template %s: title %q, description %q, mime %q; want all", tm.URITemplate.Raw(), tm.Title, tm.Description, tm.MIMEType)
		}
		raw := tm.URITemplate.Raw()
		for _, expr := range strings.Split(raw, "{")[1:] {
			name, _, _ := strings.Cut(expr, "}")
			if name == "" || strings.ContainsAny(name, "+#./;?&*:,") {
				t.Errorf("template %s: {%s} is more than level-1 {var} syntax", raw, name)
			}
		}
	}
	prompts, _ := p.ListPrompts(ctx, mcp.ListPromptsRequest{})
	for _, pr := range prompts.Prompts {
		if pr.Title == "" || pr.Description == "" {
			t.Errorf("prompt %s: title %q, description %q; want both", pr.Name, pr.Title, pr.Description)
		}
		for _, a := range pr.Arguments {
			if a.Description == "" {
				t.Errorf("prompt %s argument %s has no description", pr.Name, a.Name)
			}
		}
	}
	tools, _ := p.ListTools(ctx, mcp.ListToolsRequest{})
	for _, tool := range tools.Tools {
		if tool.Title == "" || tool.Description == "" {
			t.Errorf("tool %s: title %q, description %q; want both", tool.Name, tool.Title, tool.Description)
		}
		for name, prop := range tool.InputSchema.Properties {
			if m, _ := prop.(map[string]any); m["description"] == nil {
				t.Errorf("tool %s argument %s has no description", tool.Name, name)
			}
		}
	}
}

func TestToolAnnotationsMarkReadOnlyAndDestructiveTools(t *testing.T) {
	p := connectDemo(t)
	tools, err := p.ListTools(ctxT(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{EchoTool: true, AddTool: true, SlowTool: true, ImageTool: true, BigTextTool: true,
		StructuredTool: true, FailTool: true, LinksTool: true, TouchTool: true, DeleteNoteTool: false, AddNoteTool: false,
		BookTableTool: true, SummarizeTool: true, RootsTool: true, DiceTool: true}
	required := map[string][]string{EchoTool: {"message"}, AddTool: {"a", "b"}, DeleteNoteTool: {"id"}, AddNoteTool: {"title"}, TouchTool: {"uri"},
		SummarizeTool: {"text"}}
	for _, tool := range tools.Tools {
		a := tool.Annotations
		if a.ReadOnlyHint == nil || *a.ReadOnlyHint != readOnly[tool.Name] {
			t.Errorf("tool %s readOnlyHint = %v, want %v", tool.Name, a.ReadOnlyHint, readOnly[tool.Name])
		}
		wantDestructive := tool.Name == DeleteNoteTool
		if a.DestructiveHint == nil || *a.DestructiveHint != wantDestructive {
			t.Errorf("tool %s destructiveHint = %v, want %v", tool.Name, a.DestructiveHint, wantDestructive)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("tool %s openWorldHint = %v, want false", tool.Name, a.OpenWorldHint)
		}
		if want := required[tool.Name]; !slices.Equal(tool.InputSchema.Required, want) {
			t.Errorf("tool %s required = %v, want %v", tool.Name, tool.InputSchema.Required, want)
		}
	}
}

func TestResourceAudienceAnnotations(t *testing.T) {
	p := connectDemo(t)
	resources, err := p.ListResources(ctxT(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]mcp.Role{WelcomeURI: mcp.RoleUser, AssistantGuideURI: mcp.RoleAssistant}
	for _, r := range resources.Resources {
		role, ok := want[r.URI]
		if !ok {
			continue
		}
		delete(want, r.URI)
		if r.Annotations == nil || !slices.Equal(r.Annotations.Audience, []mcp.Role{role}) || r.Annotations.Priority == nil {
			t.Errorf("%s annotations = %+v, want audience [%s] and a priority", r.URI, r.Annotations, role)
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}
