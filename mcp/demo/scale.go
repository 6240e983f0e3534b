package demo

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Scale mode (Options.Scale > 0) adds Scale generated resources, Scale/10
// tools and Scale/10 prompts without making start-up or listing slow.
//
// The generated items are virtual: they are computed from their index when a
// page needs them and are never registered with mcp-go in bulk. mcp-go's
// list handlers copy and sort every registered item on every page (measured:
// 145 ms a page at 100 000 resources, 8 ms at 10 000 tools), and registering
// 100 000 resources costs 65 ms. Instead, after-list hooks rewrite each page:
// they merge the registered items with the generated ones in mcp-go's order
// (by name) and cursor format (base64 of the last name on the page), at
// O(registered + log n) a page.
//
// Generated resources are read through ScaleTemplate. A generated tool or
// prompt is registered with mcp-go by a before-hook on its first
// tools/call or prompts/get; tools and prompts do not advertise listChanged,
// so that is invisible to clients.

// scaleSet computes the generated items of one server.
type scaleSet struct {
	srv     *server.MCPServer
	n       int // generated resources
	width   int // digits in a resource number
	fns     int // generated tools, and generated prompts
	fnWidth int // digits in a tool or prompt number

	mu         sync.Mutex
	registered map[string]bool // generated tools and prompts already registered
}

const (
	scaleResourcePrefix = "scale-"
	scaleToolPrefix     = "gen_tool_"
	scalePromptPrefix   = "gen_prompt_"
)

func (d *demoServer) addScale(hooks *server.Hooks) *scaleSet {
	sc := &scaleSet{srv: d.srv, n: d.scale, width: max(len(strconv.Itoa(d.scale)), 6),
		fns: d.scale / 10, fnWidth: max(len(strconv.Itoa(d.scale/10)), 5), registered: map[string]bool{}}
	d.srv.AddResourceTemplate(mcp.NewResourceTemplate(ScaleTemplate, "scale-item",
		mcp.WithTemplateTitle("Generated item"),
		mcp.WithTemplateDescription(fmt.Sprintf("One of the %d generated items of scale mode; n is 1 to %d, zero-padded to %d digits.", sc.n, sc.n, sc.width)),
		mcp.WithTemplateMIMEType("text/plain"),
	), sc.read)

	resources := virtualList[mcp.Resource]{n: sc.n, name: sc.resourceName, item: sc.resource}
	tools := virtualList[mcp.Tool]{n: sc.fns, name: sc.toolName, item: sc.tool}
	prompts := virtualList[mcp.Prompt]{n: sc.fns, name: sc.promptName, item: sc.prompt}
	hooks.AddAfterListResources(func(_ context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		var reg []mcp.Resource
		for _, r := range sc.srv.ListResources() {
			reg = append(reg, r.Resource)
		}
		if page, next, ok := mergedPage(reg, resources, req.Params.Cursor); ok {
			res.Resources, res.NextCursor = page, next
		}
	})
	hooks.AddAfterListTools(func(_ context.Context, _ any, req *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		var reg []mcp.Tool
		for _, t := range sc.srv.ListTools() {
			reg = append(reg, t.Tool)
		}
		if page, next, ok := mergedPage(reg, tools, req.Params.Cursor); ok {
			res.Tools, res.NextCursor = page, next
		}
	})
	hooks.AddAfterListPrompts(func(_ context.Context, _ any, req *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
		var reg []mcp.Prompt
		for _, p := range sc.srv.ListPrompts() {
			reg = append(reg, p.Prompt)
		}
		if page, next, ok := mergedPage(reg, prompts, req.Params.Cursor); ok {
			res.Prompts, res.NextCursor = page, next
		}
	})
	hooks.AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) { sc.register(req.Params.Name) })
	hooks.AddBeforeGetPrompt(func(_ context.Context, _ any, req *mcp.GetPromptRequest) { sc.register(req.Params.Name) })
	return sc
}

// virtualList is n generated items in name order, computed from their index.
type virtualList[T mcp.Named] struct {
	n    int
	name func(i int) string // strictly increasing in i
	item func(i int) T
}

// mergedPage returns the page after cursor of the name-ordered merge of
// registered (in any order) and v, where a registered item replaces a
// generated one of the same name. The next cursor is empty on the last page.
// ok is false if the cursor is not base64, which mcp-go has already answered
// with an error.
func mergedPage[T mcp.Named](registered []T, v virtualList[T], cursor mcp.Cursor) (page []T, next mcp.Cursor, ok bool) {
	after := ""
	if cursor != "" {
		b, err := base64.StdEncoding.DecodeString(string(cursor))
		if err != nil {
			return nil, "", false
		}
		after = string(b)
	}
	slices.SortFunc(registered, func(a, b T) int { return cmp.Compare(a.GetName(), b.GetName()) })
	r := sort.Search(len(registered), func(i int) bool { return registered[i].GetName() > after })
	g := sort.Search(v.n, func(i int) bool { return v.name(i) > after })
	page = make([]T, 0, ScalePageSize)
	for len(page) < ScalePageSize && (r < len(registered) || g < v.n) {
		switch {
		case g >= v.n:
			page = append(page, registered[r])
			r++
		case r >= len(registered) || v.name(g) < registered[r].GetName():
			page = append(page, v.item(g))
			g++
		default:
			if registered[r].GetName() == v.name(g) {
				g++
			}
			page = append(page, registered[r])
			r++
		}
	}
	if len(page) > 0 && (r < len(registered) || g < v.n) {
		next = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(page[len(page)-1].GetName())))
	}
	return page, next, true
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// words returns three deterministic words, so search has something to find.
func words(seed uint64) (string, string, string) {
	r := newPRNG(seed)
	return pick(r, loremWords), pick(r, loremWords), pick(r, loremWords)
}

// resourceName returns the name of generated resource i (0-based):
// scale-000001 and up. Zero padding makes name order index order.
func (sc *scaleSet) resourceName(i int) string { return scaleResourcePrefix + pad(i+1, sc.width) }

func (sc *scaleSet) text(i int) string {
	a, b, c := words(uint64(i) + 1)
	return "Generated item " + strconv.Itoa(i+1) + " of " + strconv.Itoa(sc.n) + ".\nTopic: " + a + " " + b + " " + c + ".\n"
}

func (sc *scaleSet) resource(i int) mcp.Resource {
	num := pad(i+1, sc.width)
	a, b, c := words(uint64(i) + 1)
	return mcp.Resource{
		URI:         "demo://scale/" + num,
		Name:        scaleResourcePrefix + num,
		Title:       "Generated item " + strconv.Itoa(i+1),
		Description: "Generated item about " + a + ", " + b + " and " + c + ", for catalog-scale benchmarks.",
		MIMEType:    "text/plain",
		Size:        ptr(int64(len(sc.text(i)))),
	}
}

func (sc *scaleSet) read(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	raw := templateArg(req, "n")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > sc.n {
		return nil, fmt.Errorf("%s: %q is not an item number: use 1 to %d, e.g. demo://scale/%s", ScaleTemplate, raw, sc.n, pad(42, sc.width))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: sc.text(n - 1)}}, nil
}

// complete offers item numbers that start with prefix (zero-padded).
func (sc *scaleSet) complete(prefix string) *mcp.Completion {
	if len(prefix) > sc.width || strings.Trim(prefix, "0123456789") != "" {
		return complete(nil, "")
	}
	p := 0
	if prefix != "" {
		p, _ = strconv.Atoi(prefix)
	}
	span := 1
	for range sc.width - len(prefix) {
		span *= 10
	}
	lo, hi := max(p*span, 1), min((p+1)*span-1, sc.n)
	c := &mcp.Completion{Values: []string{}}
	if lo > hi {
		return c
	}
	for i := lo; i <= hi && len(c.Values) < maxCompletionValues; i++ {
		c.Values = append(c.Values, pad(i, sc.width))
	}
	c.Total = hi - lo + 1
	c.HasMore = c.Total > len(c.Values)
	return c
}

func (sc *scaleSet) toolName(j int) string   { return scaleToolPrefix + pad(j+1, sc.fnWidth) }
func (sc *scaleSet) promptName(j int) string { return scalePromptPrefix + pad(j+1, sc.fnWidth) }

func (sc *scaleSet) tool(j int) mcp.Tool {
	a, b, c := words(uint64(j) + 1e9)
	return mcp.NewTool(sc.toolName(j),
		mcp.WithToolTitle("Generated tool "+strconv.Itoa(j+1)),
		mcp.WithDescription("Generated tool for catalog-scale benchmarks about "+a+", "+b+" and "+c+"; echoes its text."),
		mcp.WithString("text", mcp.Description("Text to echo back.")),
		readOnlyTool,
	)
}

func (sc *scaleSet) prompt(j int) mcp.Prompt {
	a, b, c := words(uint64(j) + 2e9)
	return mcp.NewPrompt(sc.promptName(j),
		mcp.WithPromptTitle("Generated prompt "+strconv.Itoa(j+1)),
		mcp.WithPromptDescription("Generated prompt for catalog-scale benchmarks about "+a+", "+b+" and "+c+"."),
	)
}

// index returns j if name is prefix followed by a generated number, else -1.
func (sc *scaleSet) index(name, prefix string) int {
	num, ok := strings.CutPrefix(name, prefix)
	if !ok || len(num) != sc.fnWidth {
		return -1
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > sc.fns {
		return -1
	}
	return n - 1
}

// register adds the generated tool or prompt called name to mcp-go, once,
// before mcp-go looks it up.
func (sc *scaleSet) register(name string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.registered[name] {
		return
	}
	if j := sc.index(name, scaleToolPrefix); j >= 0 {
		sc.srv.AddTool(sc.tool(j), echoGenerated)
	} else if j := sc.index(name, scalePromptPrefix); j >= 0 {
		a, b, c := words(uint64(j) + 2e9)
		text := "Tell me about " + a + ", " + b + " and " + c + "."
		sc.srv.AddPrompt(sc.prompt(j), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A generated prompt", []mcp.PromptMessage{userText(text)}), nil
		})
	} else {
		return
	}
	sc.registered[name] = true
}

func echoGenerated(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, bad := argsOf(req).str("text", false, "", `{"text": "hello"}`)
	if bad != nil {
		return bad, nil
	}
	return mcp.NewToolResultText(req.Params.Name + ": " + text), nil
}
