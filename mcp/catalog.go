package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	// KindSkill is a skill of a server that declares the skills extension
	// (SEP-2640): listed by its entry, its files read only when loaded.
	KindSkill Kind = "skill"
)

// Kinds lists every kind in catalog order.
var Kinds = []Kind{KindTool, KindResource, KindTemplate, KindPrompt, KindSkill}

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
	case "skill", "skills":
		return KindSkill, nil
	}
	return "", fmt.Errorf("unknown kind %q: use tool, resource, resource_template, prompt or skill", s)
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

// ReadOnly reports whether the server says the tool changes nothing
// (readOnlyHint true and destructiveHint not true). Nil-safe.
func (a *ToolAnnotations) ReadOnly() bool {
	return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint && !a.saysDestructive()
}

// MayDestroy reports whether the tool may make destructive changes, by the
// MCP spec's defaults: destructiveHint defaults to true for a tool that is
// not read-only, so a tool without annotations, or without
// destructiveHint, may destroy. Only destructiveHint false, or
// readOnlyHint true, says it does not. Nil-safe.
func (a *ToolAnnotations) MayDestroy() bool {
	return a.saysDestructive() || !a.ReadOnly() && (a == nil || a.DestructiveHint == nil)
}

// saysDestructive reports whether the server marks the tool destructive
// in so many words.
func (a *ToolAnnotations) saysDestructive() bool {
	return a != nil && a.DestructiveHint != nil && *a.DestructiveHint
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
	// Skill is a skill's entry: its frontmatter and files.
	Skill *SkillEntry `json:"skill,omitempty"`
	// AppURI is the ui:// interface (MCP Apps) a tool declares in
	// _meta.ui.resourceUri, or a resource's own URI when it is one.
	AppURI string `json:"app_uri,omitempty"`
	// AppVisibility is a tool's _meta.ui.visibility: who may call it
	// ("model", "app"); empty means both.
	AppVisibility []string `json:"app_visibility,omitempty"`
	// AppMeta is an app resource's _meta.ui as listed: the fallback for
	// what its content's _meta.ui leaves out (ReadApp).
	AppMeta json.RawMessage `json:"-"`
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
	// Item names the item a warning leaves out on purpose (the listing is
	// otherwise whole), such as a tool whose definition cannot be used.
	Item   string `json:"item,omitempty"`
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

	// index is built by dedupe before the catalog is published, or once
	// (indexOnce) for a catalog made by hand: lookups run on many
	// goroutines at once.
	index     map[itemKey]int
	indexOnce sync.Once
	idxOnce   sync.Once
	idx       *searchIndex
	schemas   sync.Map // tool ID -> compiled input schema (*jsonschema.Schema, nil when none)
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
	i, ok := c.Position(kind, id)
	if !ok {
		return CatalogItem{}, false
	}
	return c.Items[i], true
}

// Position is the index in Items of the item of kind and id, found
// without copying it or building its key.
func (c *Catalog) Position(kind Kind, id string) (int, bool) {
	c.indexOnce.Do(func() {
		if c.index == nil {
			c.buildIndex()
		}
	})
	i, ok := c.index[itemKey{kind, id}]
	return i, ok
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

// itemKey is Key's parts, for an index that allocates nothing per item.
type itemKey struct {
	kind Kind
	id   string
}

func (c *Catalog) buildIndex() {
	c.index = make(map[itemKey]int, len(c.Items))
	for i, it := range c.Items {
		c.index[itemKey{it.Kind, it.ID}] = i
	}
}

// kindList says how to list one kind: the method and the result's array key.
var kindList = map[Kind]struct{ method, key string }{
	KindTool:     {"tools/list", "tools"},
	KindResource: {"resources/list", "resources"},
	KindTemplate: {"resources/templates/list", "resourceTemplates"},
	KindPrompt:   {"prompts/list", "prompts"},
	KindSkill:    {"skills/list", "skills"},
}

// ListCatalog lists every kind the server advertises, every page of each,
// concurrently. A kind whose listing fails becomes a warning; the others
// still come back. A malformed item is skipped with a warning of its own.
func (c *Conn) ListCatalog(ctx context.Context) *Catalog {
	want := c.listedKinds()
	results := make([]*kindListing, len(want))
	var wg sync.WaitGroup
	for i, k := range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &kindListing{kind: k}
			c.listMore(ctx, l, nil)
			results[i] = l
		}()
	}
	wg.Wait()
	cat := &Catalog{Server: c.name, Listed: want}
	n := 0
	for _, l := range results {
		n += l.n
	}
	cat.Items = make([]CatalogItem, 0, n)
	for i, l := range results {
		for j, p := range l.pages {
			cat.Items = append(cat.Items, p...)
			l.pages[j] = nil // garbage now, not live beside its copy at the next GC
		}
		cat.Warnings = append(cat.Warnings, l.warns...)
		if l.failed {
			cat.Failed = append(cat.Failed, want[i])
		}
	}
	cat.dedupe()
	return cat
}

// listedKinds are the kinds the server advertises, in catalog order.
func (c *Conn) listedKinds() []Kind {
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
	if f.Skills {
		want = append(want, KindSkill)
	}
	return want
}

// dedupe keeps the first item of each key and warns about the rest; the
// keys it sees are the catalog's index.
func (c *Catalog) dedupe() {
	c.index = make(map[itemKey]int, len(c.Items))
	out := c.Items[:0]
	for _, it := range c.Items {
		k := itemKey{it.Kind, it.ID}
		if _, seen := c.index[k]; seen {
			c.Warnings = append(c.Warnings, duplicateWarning(it.Kind, it.ID))
			c.Duplicates = append(c.Duplicates, it)
			continue
		}
		c.index[k] = len(out)
		out = append(out, it)
	}
	c.Items = out
}

// duplicateWarning says an item was skipped for the key of an earlier one.
func duplicateWarning(k Kind, id string) Warning {
	return Warning{Kind: k, Reason: fmt.Sprintf("duplicate %s %q skipped", k, id)}
}

// kindListing is one kind's listing, as far as it has gone: the items of
// the pages read so far and where the next page starts. A listing that
// stopped early (Runtime.Item found what it looked for) goes on from
// there when more is wanted.
type kindListing struct {
	kind Kind
	// pages holds the items of each page read, n how many in all.
	pages [][]CatalogItem
	n     int
	warns []Warning
	// cursor is the next page's; page counts the pages read.
	cursor string
	page   int
	// seen holds a digest of each cursor followed, not the cursor: a
	// server's cursor can be as long as a message, and a listing follows
	// up to MaxListPages of them.
	seen map[[sha256.Size]byte]bool
	// raws and bytes count the items kept and their JSON, for the bounds.
	raws, bytes int
	// done: the listing reached its end, a bound, or a failure.
	done bool
	// failed: the listing failed (its first page, or a page that was not
	// a JSON object), so how many items of the kind there are is unknown.
	failed bool
	// src: keep each item's bytes in its store and the item in listed,
	// not the parsed item in pages (Runtime.Listing).
	src    *itemSource
	listed [][]ListedItem
}

// listMore reads pages of l's kind until the listing ends or until stop
// returns true for an item (the rest of its page is still taken in). Each
// page is decoded once, its items parsed as it arrives: no page's bytes
// outlive it. A page that fails after the first keeps what came before,
// with a warning; a first page that fails is a warning too, or nothing
// when the server merely lacks the method (templates, or tools of a peer
// that said nothing of itself).
func (c *Conn) listMore(ctx context.Context, l *kindListing, stop func(CatalogItem) bool) {
	k := l.kind
	key := kindList[k].key
	warn := func(format string, args ...any) {
		l.warns = append(l.warns, Warning{Kind: k, Reason: fmt.Sprintf(format, args...)})
		l.done = true
	}
	for !l.done {
		if l.page >= MaxListPages {
			warn("stopped after %d pages (MaxListPages): the server kept sending new cursors; %d items listed", MaxListPages, l.raws)
			return
		}
		raw, err := c.listPage(ctx, k, l.cursor)
		if raw == nil {
			if err == nil {
				err = errors.New("the server sent no result")
			}
			switch {
			case l.page > 0:
				warn("page %d failed (%s); the %d items of the pages before are kept", l.page+1, oneLine(err.Error()), l.raws)
			case errors.Is(err, mcpgo.ErrMethodNotFound) && (k == KindTemplate || !c.features.PeerInfoKnown):
				l.done = true // an absent kind, not a failure
			default:
				l.failed = true
				warn("listing %s failed: %s", key, oneLine(err.Error()))
			}
			return
		}
		l.page++
		var list, next []byte
		if err := render.ObjectMembers(raw, func(m string, v []byte) bool {
			switch m {
			case key:
				list = v
			case "nextCursor":
				next = v
			}
			return true
		}); err != nil {
			l.failed = true
			warn("listing %s failed: page %d is not a JSON object (%v)", key, l.page, err)
			return
		}
		var elems [][]byte
		if list != nil {
			if err := render.ArrayElements(list, func(it []byte) bool {
				elems = append(elems, it)
				return true
			}); err != nil {
				l.warns = append(l.warns, Warning{Kind: k, Reason: fmt.Sprintf("page %d: %q is not an array (%v); page skipped", l.page, key, err)})
				elems = nil
			}
		}
		// Each page's items in a slice of their own, sized once: one slice
		// grown item by item to 100,000 allocated five times its size.
		var page []CatalogItem
		if l.src == nil {
			page = make([]CatalogItem, 0, len(elems))
		}
		var keep []int
		var ids []string
		found := false
		for i, it := range elems {
			if full := listingFull(k, l.raws, l.bytes, len(it)); full != "" {
				warn("%s", full)
				break
			}
			l.raws++
			l.bytes += len(it)
			item, perr := parseItemAs(c.name, k, it, l.src != nil)
			if perr != nil {
				l.warns = append(l.warns, Warning{Kind: k, Reason: fmt.Sprintf("%s[%d] skipped: %s", key, l.raws-1, perr)})
				continue
			}
			if k == KindTool {
				if herr := c.toolHeaderProblem(it); herr != nil {
					l.warns = append(l.warns, Warning{Kind: k, Item: item.ID, Reason: herr.Error()})
					continue
				}
			}
			if l.src != nil {
				keep, ids = append(keep, i), append(ids, item.ID)
				continue
			}
			page = append(page, item)
			found = found || stop != nil && stop(item)
		}
		if len(keep) > 0 {
			l.keepLean(elems, keep, ids)
		}
		if len(page) > 0 {
			l.pages = append(l.pages, page)
			l.n += len(page)
		}
		if l.done {
			return
		}
		var cursor string
		if next != nil {
			_ = json.Unmarshal(next, &cursor)
		}
		sum := sha256.Sum256([]byte(cursor))
		switch {
		case cursor == "":
			l.done = true
		case l.seen[sum] || cursor == l.cursor:
			warn("the server repeated cursor %q after page %d; stopped with %d items", render.Ellipsize(cursor, 64), l.page, l.raws)
		default:
			if l.seen == nil {
				l.seen = map[[sha256.Size]byte]bool{}
			}
			l.seen[sum] = true
			l.cursor = cursor
		}
		if found {
			return
		}
	}
}

// listPage asks for one page of kind k and returns its raw result. A page
// unanswered for the connection's pageTimeout fails, saying so, rather
// than leaving the listing (and "listing…" on screen) waiting for ever.
func (c *Conn) listPage(ctx context.Context, k Kind, cursor string) (json.RawMessage, error) {
	limit := cmp.Or(c.pageTimeout, DefaultCallTimeout)
	if limit < 0 { // RuntimeOptions.CallTimeout: negative is none
		return c.listPageWithin(ctx, k, cursor)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("no answer within %s: raise \"timeout\" on the server's entry in the config (e.g. \"timeout\": \"5m\") if it is only slow", limit))
	defer cancel()
	raw, err := c.listPageWithin(tctx, k, cursor)
	if raw == nil && ctx.Err() == nil && tctx.Err() != nil {
		err = context.Cause(tctx)
	}
	return raw, err
}

// listPageWithin is listPage's request, bounded by ctx alone.
func (c *Conn) listPageWithin(ctx context.Context, k Kind, cursor string) (json.RawMessage, error) {
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
	case KindSkill: // skills/list is howl's own request, not mcp-go's
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		return c.request(pctx, "skills/list", params)
	}
	return sink.get(), err
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
	Meta json.RawMessage `json:"_meta"`
	// check: only check the item and read its id (a lean listing keeps
	// the item's bytes and parses them again when it is shown), so the
	// strings that are not its id are not copied, nor the raw members.
	check bool
}

// itemFields are rawItem's JSON names.
var itemFields = []string{"name", "title", "description", "uri", "uriTemplate", "mimeType", "size",
	"inputSchema", "outputSchema", "arguments", "annotations", "execution", "_meta"}

// read fills ri from an item's JSON as json.Unmarshal would (keys match
// case-insensitively, a later duplicate wins, unknown keys are ignored, a
// value of the wrong type is an error), but in one pass that copies only
// what it keeps: a listing of 120,000 items spent most of its client time
// in json.Unmarshal, which validates each item again before decoding it.
func (ri *rawItem) read(raw []byte) error {
	var ferr error
	err := render.ObjectMemberBytes(raw, func(key, v []byte) bool {
		name := ""
		for _, f := range itemFields {
			if string(key) == f {
				name = f
				break
			}
		}
		if name == "" {
			for _, f := range itemFields {
				if bytes.EqualFold([]byte(f), key) {
					name = f
					break
				}
			}
		}
		switch name {
		case "name":
			ferr = readString(v, key, &ri.Name)
		case "title":
			ferr = readString(v, key, ri.unlessChecking(&ri.Title))
		case "description":
			ferr = readString(v, key, ri.unlessChecking(&ri.Description))
		case "mimeType":
			ferr = readString(v, key, ri.unlessChecking(&ri.MIMEType))
		case "uri":
			ferr = readString(v, key, &ri.URI)
		case "uriTemplate":
			ferr = readString(v, key, &ri.URITemplate)
		case "size":
			ri.Size = nil
			if string(v) != "null" {
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil {
					ferr = fmt.Errorf("%q is %s, not a size in bytes (an integer)", key, render.Ellipsize(string(v), 40))
				}
				ri.Size = &n
			}
		case "inputSchema":
			ri.InputSchema = ri.keep(v)
		case "outputSchema":
			ri.OutputSchema = ri.keep(v)
		case "annotations":
			ri.Annotations = ri.keep(v)
		case "_meta":
			ri.Meta = ri.keep(v)
		case "arguments":
			ferr = json.Unmarshal(v, &ri.Arguments)
		case "execution":
			ferr = json.Unmarshal(v, &ri.Execution)
		}
		return ferr == nil
	})
	if err != nil {
		return err
	}
	return ferr
}

// unlessChecking is s, or nil (read nothing into it) when the item is
// only checked.
func (ri *rawItem) unlessChecking(s *string) *string {
	if ri.check {
		return nil
	}
	return s
}

// keep is a raw member's value: a copy, or the bytes themselves when the
// item is only checked.
func (ri *rawItem) keep(v []byte) []byte {
	if ri.check {
		return v
	}
	return bytes.Clone(v)
}

// readString reads a JSON string (or null, which leaves *s alone); with
// s nil, it only checks the string.
func readString(v, key []byte, s *string) error {
	switch v[0] {
	case '"':
		b, err := render.StringBytes(v)
		if s != nil {
			*s = string(b)
		}
		return err
	case 'n':
		return nil
	}
	return fmt.Errorf("%q is not a string (got %s)", key, render.Ellipsize(string(v), 40))
}

type resourceAnnotations struct {
	Audience     []string `json:"audience"`
	Priority     *float64 `json:"priority"`
	LastModified string   `json:"lastModified"`
}

func parseItem(server string, k Kind, raw json.RawMessage) (CatalogItem, error) {
	return parseItemAs(server, k, raw, false)
}

// parseItemAs is parseItem; with check, only the item's id is sure to be
// read (the rest may be missing, or point into raw).
func parseItemAs(server string, k Kind, raw json.RawMessage, check bool) (CatalogItem, error) {
	if k == KindSkill {
		return parseSkill(server, raw)
	}
	ri := rawItem{check: check}
	if err := ri.read(raw); err != nil {
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
		it.AppURI, it.AppVisibility = toolAppMeta(ri.Meta)
	case KindResource, KindTemplate:
		if k == KindResource {
			if ri.URI == "" {
				return it, fmt.Errorf("resource %q has no uri", ri.Name)
			}
			it.ID, it.URI = ri.URI, ri.URI
			if IsAppResource(ri.URI, ri.MIMEType) {
				it.AppURI = ri.URI
				it.AppMeta = listedAppMeta(ri.Meta)
			}
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
	slot := r.slotOf(name)
	cached, gen := slot.catalog, slot.catGen
	if cached != nil && !refresh {
		r.mu.Unlock()
		return cached, nil
	}
	slot.listings++
	seq := slot.listings
	r.mu.Unlock()
	cat := conn.ListCatalog(ctx)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("listing %s: %w", name, ctx.Err())
	}
	if err := r.endedErr(name, conn); err != nil { // it died while it was listed
		return nil, err
	}
	r.mu.Lock()
	if s := r.servers[name]; s == slot && s.conn == conn && s.catGen == gen && seq > s.landed {
		s.catalog, s.landed = cat, seq
	}
	r.mu.Unlock()
	return cat, nil
}

// Item finds one item of a server without listing more than the answer
// needs: in the catalog when it is cached; else in that kind's listing,
// read page by page only until the item turns up, and kept, so the next
// lookup goes on from where this one stopped. The Catalog returned is
// what the item was looked up in, for CheckArguments and for the
// suggestions of a not-found error: the whole catalog, the one item when
// it was found in a partial listing, or the whole kind when it was not
// found (a name that is not there lists its kind to the end, once).
func (r *Runtime) Item(ctx context.Context, server string, kind Kind, id string) (CatalogItem, bool, *Catalog, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return CatalogItem{}, false, nil, err
	}
	r.mu.Lock()
	slot := r.slotOf(server)
	full := slot.catalog
	var kc *kindCache
	if full == nil && slot.conn == conn {
		if slot.kinds == nil {
			slot.kinds = map[Kind]*kindCache{}
		}
		if kc = slot.kinds[kind]; kc == nil {
			kc = &kindCache{l: kindListing{kind: kind}}
			slot.kinds[kind] = kc
		}
	}
	r.mu.Unlock()
	if full != nil {
		it, ok := full.Lookup(kind, id)
		return it, ok, full, nil
	}
	if kc == nil { // the connection changed under us: look up without keeping
		kc = &kindCache{l: kindListing{kind: kind}}
	}
	return kc.lookup(ctx, conn, id)
}

// cachedItem finds an item in what is already listed, asking nothing.
func (r *Runtime) cachedItem(server string, kind Kind, id string) (CatalogItem, bool) {
	r.mu.Lock()
	slot, ok := r.servers[server]
	var full *Catalog
	var kc *kindCache
	if ok {
		full, kc = slot.catalog, slot.kinds[kind]
	}
	r.mu.Unlock()
	switch {
	case full != nil:
		return full.Lookup(kind, id)
	case kc != nil:
		kc.mu.Lock()
		defer kc.mu.Unlock()
		return kc.find(id, 0)
	}
	return CatalogItem{}, false
}

// kindCache is one kind of a server's items, listed alone by Item as far
// as a lookup needed.
type kindCache struct {
	mu  sync.Mutex
	l   kindListing
	cat *Catalog // the whole kind, once listed to its end
	// one holds the catalog of each item found before the end, made
	// once, so that the schema CheckArguments compiles in it is compiled
	// once: a call that found its tool in a fresh catalog of one item
	// compiled the tool's schema on every call (28% of a warm call's CPU).
	one map[string]*Catalog
}

// single is the catalog of one item found in a partial listing.
func (kc *kindCache) single(server string, it CatalogItem) *Catalog {
	if c, ok := kc.one[it.ID]; ok {
		return c
	}
	c := &Catalog{Server: server, Items: []CatalogItem{it}}
	if kc.one == nil {
		kc.one = map[string]*Catalog{}
	}
	kc.one[it.ID] = c
	return c
}

func (kc *kindCache) lookup(ctx context.Context, conn *Conn, id string) (CatalogItem, bool, *Catalog, error) {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	if kc.cat != nil {
		it, ok := kc.cat.Lookup(kc.l.kind, id)
		return it, ok, kc.cat, nil
	}
	if it, ok := kc.find(id, 0); ok {
		return it, true, kc.single(conn.name, it), nil
	}
	if !slices.Contains(conn.listedKinds(), kc.l.kind) {
		kc.cat = &Catalog{Server: conn.name, Listed: []Kind{}}
		return CatalogItem{}, false, kc.cat, nil
	}
	from := len(kc.l.pages)
	conn.listMore(ctx, &kc.l, func(it CatalogItem) bool { return it.ID == id })
	if err := ctx.Err(); err != nil {
		kc.l = kindListing{kind: kc.l.kind} // a cancelled page is not the end of the kind
		return CatalogItem{}, false, nil, fmt.Errorf("listing %s of %s: %w", kindList[kc.l.kind].key, conn.name, err)
	}
	if it, ok := kc.find(id, from); ok {
		return it, true, kc.single(conn.name, it), nil
	}
	cat := &Catalog{Server: conn.name, Listed: []Kind{kc.l.kind}, Items: slices.Concat(kc.l.pages...), Warnings: kc.l.warns}
	cat.dedupe()
	kc.cat = cat
	return CatalogItem{}, false, cat, nil
}

// find looks for id among the listed items, from page from on.
func (kc *kindCache) find(id string, from int) (CatalogItem, bool) {
	if kc.cat != nil {
		return kc.cat.Lookup(kc.l.kind, id)
	}
	for _, p := range kc.l.pages[from:] {
		for _, it := range p {
			if it.ID == id {
				return it, true
			}
		}
	}
	return CatalogItem{}, false
}

// SortListed orders items by kind (catalog order), then server, then id.
// It sorts pointers, so a listing of 120,000 items moves 8 bytes an item,
// not the item, and a listing already in order is only checked.
func SortListed(items []*ListedItem) {
	order := func(a, b *ListedItem) int {
		return cmp.Or(cmp.Compare(kindRank(a.Kind()), kindRank(b.Kind())), strings.Compare(a.Server(), b.Server()), strings.Compare(a.ID, b.ID))
	}
	if !slices.IsSortedFunc(items, order) {
		slices.SortStableFunc(items, order)
	}
}

// kindRank is a kind's place in catalog order.
func kindRank(k Kind) int {
	switch k {
	case KindTool:
		return 0
	case KindResource:
		return 1
	case KindTemplate:
		return 2
	case KindPrompt:
		return 3
	case KindSkill:
		return 4
	}
	return 5
}
