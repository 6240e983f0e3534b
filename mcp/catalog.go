package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// Kind is the kind of a catalog item.
type Kind string

// The four kinds of thing an MCP server offers.
const (
	KindTool     Kind = "tool"
	KindResource Kind = "resource"
	KindTemplate Kind = "resource_template"
	KindPrompt   Kind = "prompt"
)

// Kinds lists every kind in catalog order.
var Kinds = []Kind{KindTool, KindResource, KindTemplate, KindPrompt}

// ParseKind accepts a kind's name and a few plural or short spellings.
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "tool", "tools":
		return KindTool, nil
	case "resource", "resources":
		return KindResource, nil
	case "resource_template", "resource_templates", "template", "templates", "resource-template":
		return KindTemplate, nil
	case "prompt", "prompts":
		return KindPrompt, nil
	}
	return "", fmt.Errorf("unknown kind %q: use tool, resource, resource_template or prompt", s)
}

// Bounds on one kind's listing, so a server whose cursor never ends cannot
// keep howl listing forever or fill its memory. A listing that reaches one
// stops with a warning saying how many items were kept.
const (
	// MaxListPages bounds how many pages one listing follows.
	MaxListPages = 5000
	// MaxCatalogItems bounds how many items of one kind are kept (the
	// 100 000-resource scale demo lists 100 125).
	MaxCatalogItems = 150_000
	// MaxListingBytes bounds the JSON bytes of the items of one kind kept
	// (the scale demo's resources take 21 MB).
	MaxListingBytes = 32 << 20
)

// ToolAnnotations are a tool's behaviour hints (advisory, from the server).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// PromptArgument is one named, string-valued prompt argument. The spec's
// default for Required is false.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// CatalogItem is one thing a server offers, of any kind.
type CatalogItem struct {
	Kind   Kind   `json:"kind"`
	Server string `json:"server"`
	// ID is the tool name, resource URI, URI template or prompt name.
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	URI         string   `json:"uri,omitempty"`
	MIMEType    string   `json:"mime_type,omitempty"`
	Size        *int64   `json:"size,omitempty"`
	Audience    []string `json:"audience,omitempty"`
	Priority    *float64 `json:"priority,omitempty"`
	// LastModified is the resource annotation, as the server wrote it.
	LastModified string           `json:"last_modified,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// TaskSupport is a tool's execution.taskSupport (forbidden, optional, required).
	TaskSupport string `json:"task_support,omitempty"`
	// Variables are a resource template's {var} names.
	Variables []string         `json:"variables,omitempty"`
	Arguments []PromptArgument `json:"arguments,omitempty"`
	// Schema is a tool's input schema; OutputSchema its output schema.
	Schema       json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Off marks a tool the person switched off ("disabledTools"), in the
	// listings shown to the person (howl ls); the model's catalog
	// (ModelCatalog) leaves such tools out instead.
	Off bool `json:"off,omitempty"`
}

// Key is the catalog key "{kind}:{id}", so a tool and a resource with the
// same name both survive.
func (i CatalogItem) Key() string { return string(i.Kind) + ":" + i.ID }

// DisplayName is the title when there is one, else the name.
func (i CatalogItem) DisplayName() string {
	if i.Title != "" {
		return i.Title
	}
	return i.Name
}

// Warning is a listing problem that did not stop the rest of the catalog.
type Warning struct {
	// Server is set where warnings of several servers meet (a search of
	// every server).
	Server string `json:"server,omitempty"`
	Kind   Kind   `json:"kind"`
	Reason string `json:"reason"`
}

// Catalog is everything one server offers.
type Catalog struct {
	Server string `json:"server"`
	// Listed says which kinds were listed (the server advertises them).
	Listed []Kind `json:"listed"`
	// Warnings: kinds whose listing failed, items that were malformed.
	Warnings []Warning `json:"warnings,omitempty"`
	// Failed are the kinds whose listing failed: how many such items the
	// server has is unknown (not zero), whatever Items holds of them.
	Failed []Kind        `json:"failed,omitempty"`
	Items  []CatalogItem `json:"items"`
	// Duplicates are the items skipped because an earlier one had the
	// same key (for howl lint).
	Duplicates []CatalogItem `json:"-"`

	index   map[string]int
	idxOnce sync.Once
	idx     *searchIndex
	schemas sync.Map // tool ID -> compiled input schema (*jsonschema.Schema, nil when none)
}

// Count returns how many items of kind the catalog holds.
func (c *Catalog) Count(kind Kind) int {
	n := 0
	for _, it := range c.Items {
		if it.Kind == kind {
			n++
		}
	}
	return n
}

// KnownCount is Count when the kind was listed whole; ok is false when its
// listing failed, so the number of such items is unknown.
func (c *Catalog) KnownCount(kind Kind) (n int, ok bool) {
	if slices.Contains(c.Failed, kind) {
		return 0, false
	}
	return c.Count(kind), true
}

// Lookup finds an item by kind and id.
func (c *Catalog) Lookup(kind Kind, id string) (CatalogItem, bool) {
	if c.index == nil {
		c.buildIndex()
	}
	i, ok := c.index[string(kind)+":"+id]
	if !ok {
		return CatalogItem{}, false
	}
	return c.Items[i], true
}

// Of returns the items of one kind, in listing order.
func (c *Catalog) Of(kind Kind) []CatalogItem {
	var out []CatalogItem
	for _, it := range c.Items {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

func (c *Catalog) buildIndex() {
	c.index = make(map[string]int, len(c.Items))
	for i, it := range c.Items {
		c.index[it.Key()] = i
	}
}

// kindList says how to list one kind: the method and the result's array key.
var kindList = map[Kind]struct{ method, key string }{
	KindTool:     {"tools/list", "tools"},
	KindResource: {"resources/list", "resources"},
	KindTemplate: {"resources/templates/list", "resourceTemplates"},
	KindPrompt:   {"prompts/list", "prompts"},
}

// ListCatalog lists every kind the server advertises, every page of each,
// concurrently. A kind whose listing fails becomes a warning; the others
// still come back. A malformed item is skipped with a warning of its own.
func (c *Conn) ListCatalog(ctx context.Context) *Catalog {
	f := c.features
	want := []Kind{}
	if f.ToolsCapable() {
		want = append(want, KindTool)
	}
	if f.Resources {
		want = append(want, KindResource, KindTemplate)
	}
	if f.Prompts {
		want = append(want, KindPrompt)
	}
	type listed struct {
		items  []CatalogItem
		warns  []Warning
		failed bool
	}
	results := make([]listed, len(want))
	var wg sync.WaitGroup
	for i, k := range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raws, warns, err := c.listRaw(ctx, k)
			var ws []Warning
			for _, w := range warns {
				ws = append(ws, Warning{Kind: k, Reason: w})
			}
			if err != nil {
				if errors.Is(err, mcpgo.ErrMethodNotFound) && (k == KindTemplate || !f.PeerInfoKnown) {
					// Advertised resources without templates, or an unknown
					// peer without tools: an absent kind, not a failure.
					results[i] = listed{warns: ws}
					return
				}
				ws = append(ws, Warning{Kind: k, Reason: fmt.Sprintf("listing %s failed: %s", kindList[k].key, oneLine(err.Error()))})
			}
			var items []CatalogItem
			for j, raw := range raws {
				it, perr := parseItem(c.name, k, raw)
				if perr != nil {
					ws = append(ws, Warning{Kind: k, Reason: fmt.Sprintf("%s[%d] skipped: %s", kindList[k].key, j, perr)})
					continue
				}
				items = append(items, it)
			}
			results[i] = listed{items: items, warns: ws, failed: err != nil}
		}()
	}
	wg.Wait()
	cat := &Catalog{Server: c.name, Listed: want}
	for i, r := range results {
		cat.Items = append(cat.Items, r.items...)
		cat.Warnings = append(cat.Warnings, r.warns...)
		if r.failed {
			cat.Failed = append(cat.Failed, want[i])
		}
	}
	cat.dedupe()
	return cat
}

// dedupe keeps the first item of each key and warns about the rest.
func (c *Catalog) dedupe() {
	seen := make(map[string]bool, len(c.Items))
	out := c.Items[:0]
	for _, it := range c.Items {
		k := it.Key()
		if seen[k] {
			c.Warnings = append(c.Warnings, Warning{Kind: it.Kind, Reason: fmt.Sprintf("duplicate %s %q skipped", it.Kind, it.ID)})
			c.Duplicates = append(c.Duplicates, it)
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	c.Items = out
	c.buildIndex()
}

// listRaw follows every page of one kind and returns the raw items. A page
// that fails after the first keeps what came before, with a warning.
func (c *Conn) listRaw(ctx context.Context, k Kind) ([]json.RawMessage, []string, error) {
	var items []json.RawMessage
	var warns []string
	bytes := 0 // of the items kept
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= MaxListPages {
			warns = append(warns, fmt.Sprintf("stopped after %d pages (MaxListPages): the server kept sending new cursors; %d items listed", MaxListPages, len(items)))
			return items, warns, nil
		}
		pctx, sink := withRawSink(ctx)
		var err error
		p := mcpgo.PaginatedRequest{Params: mcpgo.PaginatedParams{Cursor: mcpgo.Cursor(cursor)}}
		switch k {
		case KindTool:
			_, err = c.client.ListToolsByPage(pctx, mcpgo.ListToolsRequest{PaginatedRequest: p})
		case KindResource:
			_, err = c.client.ListResourcesByPage(pctx, mcpgo.ListResourcesRequest{PaginatedRequest: p})
		case KindTemplate:
			_, err = c.client.ListResourceTemplatesByPage(pctx, mcpgo.ListResourceTemplatesRequest{PaginatedRequest: p})
		case KindPrompt:
			_, err = c.client.ListPromptsByPage(pctx, mcpgo.ListPromptsRequest{PaginatedRequest: p})
		}
		raw := sink.get()
		if raw == nil {
			if err == nil {
				err = errors.New("the server sent no result")
			}
			if page == 0 {
				return nil, nil, err
			}
			warns = append(warns, fmt.Sprintf("page %d failed (%s); the %d items of the pages before are kept", page+1, oneLine(err.Error()), len(items)))
			return items, warns, nil
		}
		var env map[string]json.RawMessage
		if jerr := json.Unmarshal(raw, &env); jerr != nil {
			return items, warns, fmt.Errorf("page %d is not a JSON object: %v", page+1, jerr)
		}
		var pageItems []json.RawMessage
		if a, ok := env[kindList[k].key]; ok && string(a) != "null" {
			if jerr := json.Unmarshal(a, &pageItems); jerr != nil {
				warns = append(warns, fmt.Sprintf("page %d: %q is not an array (%v); page skipped", page+1, kindList[k].key, jerr))
			}
		}
		for _, it := range pageItems {
			if full := listingFull(k, len(items), bytes, len(it)); full != "" {
				return items, append(warns, full), nil
			}
			items = append(items, it)
			bytes += len(it)
		}
		var next string
		if nc, ok := env["nextCursor"]; ok {
			_ = json.Unmarshal(nc, &next)
		}
		if next == "" {
			return items, warns, nil
		}
		if seen[next] || next == cursor {
			warns = append(warns, fmt.Sprintf("the server repeated cursor %q after page %d; stopped with %d items", render.Ellipsize(next, 64), page+1, len(items)))
			return items, warns, nil
		}
		seen[next] = true
		cursor = next
	}
}

// listingFull says why one more item of size next does not fit in a
// listing of kind k that keeps n items of total size bytes; "" when it does.
func listingFull(k Kind, n, bytes, next int) string {
	switch key := kindList[k].key; {
	case n >= MaxCatalogItems:
		return fmt.Sprintf("kept %d of the %s; the server offered more (MaxCatalogItems = %d per kind)", n, key, MaxCatalogItems)
	case bytes+next > MaxListingBytes:
		return fmt.Sprintf("kept %d of the %s, %s of JSON; the server offered more (MaxListingBytes = %d per kind)", n, key, render.HumanBytes(int64(bytes)), MaxListingBytes)
	}
	return ""
}

// rawItem is the union of the fields howl reads from any listed item.
type rawItem struct {
	Name         string           `json:"name"`
	Title        string           `json:"title"`
	Description  string           `json:"description"`
	URI          string           `json:"uri"`
	URITemplate  string           `json:"uriTemplate"`
	MIMEType     string           `json:"mimeType"`
	Size         *int64           `json:"size"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema"`
	Arguments    []PromptArgument `json:"arguments"`
	Annotations  json.RawMessage  `json:"annotations"`
	Execution    *struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
}

type resourceAnnotations struct {
	Audience     []string `json:"audience"`
	Priority     *float64 `json:"priority"`
	LastModified string   `json:"lastModified"`
}

func parseItem(server string, k Kind, raw json.RawMessage) (CatalogItem, error) {
	var ri rawItem
	if err := json.Unmarshal(raw, &ri); err != nil {
		return CatalogItem{}, fmt.Errorf("not a valid %s: %v", k, err)
	}
	it := CatalogItem{Kind: k, Server: server, Name: ri.Name, Title: ri.Title, Description: ri.Description, MIMEType: ri.MIMEType, Size: ri.Size}
	switch k {
	case KindTool:
		if ri.Name == "" {
			return it, errors.New("a tool without a name")
		}
		it.ID = ri.Name
		it.Schema = ri.InputSchema
		it.OutputSchema = ri.OutputSchema
		if len(ri.Annotations) > 0 && string(ri.Annotations) != "null" {
			var a ToolAnnotations
			if err := json.Unmarshal(ri.Annotations, &a); err == nil {
				it.Annotations = &a
				if it.Title == "" {
					it.Title = a.Title
				}
			}
		}
		if ri.Execution != nil {
			it.TaskSupport = ri.Execution.TaskSupport
		}
	case KindResource, KindTemplate:
		if k == KindResource {
			if ri.URI == "" {
				return it, fmt.Errorf("resource %q has no uri", ri.Name)
			}
			it.ID, it.URI = ri.URI, ri.URI
		} else {
			if ri.URITemplate == "" {
				return it, fmt.Errorf("resource template %q has no uriTemplate", ri.Name)
			}
			it.ID, it.URI = ri.URITemplate, ri.URITemplate
			it.Variables = TemplateVariables(ri.URITemplate)
		}
		if it.Name == "" {
			it.Name = it.ID
		}
		if len(ri.Annotations) > 0 && string(ri.Annotations) != "null" {
			var a resourceAnnotations
			if err := json.Unmarshal(ri.Annotations, &a); err == nil {
				it.Audience, it.Priority, it.LastModified = a.Audience, a.Priority, a.LastModified
			}
		}
	case KindPrompt:
		if ri.Name == "" {
			return it, errors.New("a prompt without a name")
		}
		it.ID = ri.Name
		for _, a := range ri.Arguments {
			if a.Name != "" {
				it.Arguments = append(it.Arguments, a)
			}
		}
	}
	return it, nil
}

// Catalog returns the server's catalog, listing it on first use and after
// a list_changed notification or refresh.
func (r *Runtime) Catalog(ctx context.Context, name string, refresh bool) (*Catalog, error) {
	conn, err := r.Conn(name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	cached, gen := r.servers[name].catalog, r.servers[name].catGen
	r.mu.Unlock()
	if cached != nil && !refresh {
		return cached, nil
	}
	cat := conn.ListCatalog(ctx)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("listing %s: %w", name, ctx.Err())
	}
	r.mu.Lock()
	if s := r.servers[name]; s.conn == conn && s.catGen == gen {
		s.catalog = cat
	}
	r.mu.Unlock()
	return cat, nil
}

// SortItems orders items by kind (catalog order), then server, then name.
func SortItems(items []CatalogItem) {
	rank := map[Kind]int{KindTool: 0, KindResource: 1, KindTemplate: 2, KindPrompt: 3}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.ID < b.ID
	})
}
