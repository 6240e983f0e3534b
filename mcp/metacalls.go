package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/howl-mcp/howl/render"
)

// spillStore returns the store binary content is spilled to.
func (r *Runtime) spillStore() (*render.SpillStore, error) {
	if r.opts.Spill != nil {
		return r.opts.Spill, nil
	}
	return render.DefaultSpillStore()
}

// HoldsSpill reports whether path is a file in the store howl spills to:
// a spill pointer that names any other path was written by a server, and
// howl does not open it (render.SpillStore.Holds).
func (r *Runtime) HoldsSpill(path string) bool {
	s, err := r.spillStore()
	return err == nil && s.Holds(path)
}

func (r *Runtime) callSearch(ctx context.Context, at callSite, args MetaArgs) ([]byte, error) {
	fn, server := at.fn(PrefixSearch), at.server
	var a struct {
		Query *string      `json:"query"`
		Limit *json.Number `json:"limit"`
	}
	if err := decodeArgs(fn, args.Object, &a, searchParams); err != nil {
		return nil, err
	}
	if a.Query == nil {
		return nil, callErrorf("%s: query is required (an empty string lists the catalog)", fn)
	}
	limit, err := intArg(fn, "limit", a.Limit)
	if err != nil {
		return nil, err
	}
	if at.shared && server == "" {
		return r.searchAll(ctx, fn, *a.Query, limit)
	}
	cat, err := r.ModelCatalog(ctx, server)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	res, err := Search(cat, *a.Query, limit)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	return render.Marshal(res)
}

func intArg(fn, name string, n *json.Number) (int, error) {
	if n == nil {
		return 0, nil
	}
	v, err := n.Int64()
	if err != nil {
		return 0, callErrorf("%s: %s must be an integer, got %s", fn, name, n.String())
	}
	return int(v), nil
}

func (r *Runtime) callDescribe(ctx context.Context, at callSite, args MetaArgs) ([]byte, error) {
	fn, server := at.fn(PrefixDescribe), at.server
	var a struct {
		Tool string `json:"tool"`
		ID   string `json:"id"` // accepted as a synonym of tool
		Kind string `json:"kind"`
	}
	if err := decodeArgs(fn, args.Object, &a, describeParams); err != nil {
		return nil, err
	}
	id := a.Tool
	if id == "" {
		id = a.ID
	}
	if id == "" {
		return nil, callErrorf("%s: tool is required: pass the id %s returned", fn, at.ref(PrefixSearch))
	}
	kind := KindTool
	if a.Kind != "" {
		k, err := ParseKind(a.Kind)
		if err != nil {
			return nil, callErrorf("%s: %v", fn, err)
		}
		kind = k
	}
	cat, err := r.ModelCatalog(ctx, server)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	d, err := Describe(cat, kind, id)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	return render.Marshal(d)
}

func (r *Runtime) callRead(ctx context.Context, at callSite, args MetaArgs) ([]byte, error) {
	fn, server := at.fn(PrefixRead), at.server
	var a struct {
		URI       string         `json:"uri"`
		Arguments map[string]any `json:"arguments"`
		Pattern   string         `json:"pattern"`
		Offset    *json.Number   `json:"offset"`
		MaxBytes  *json.Number   `json:"max_bytes"`
		Skill     string         `json:"skill"`
		File      string         `json:"file"`
	}
	if err := decodeArgs(fn, args.Object, &a, readParams); err != nil {
		return nil, err
	}
	if a.Skill != "" || a.File != "" {
		return r.readSkill(ctx, fn, server, a.URI, a.Skill, a.File, a.Pattern, a.Offset, a.MaxBytes)
	}
	if a.URI == "" {
		return nil, callErrorf("%s: uri is required: find one with %s", fn, at.ref(PrefixSearch))
	}
	offset, err := intArg(fn, "offset", a.Offset)
	if err != nil {
		return nil, err
	}
	maxBytes, err := intArg(fn, "max_bytes", a.MaxBytes)
	if err != nil {
		return nil, err
	}
	uri := a.URI
	if len(a.Arguments) > 0 || strings.ContainsAny(uri, "{}") {
		vals, err := templateValues(fn, a.Arguments)
		if err != nil {
			return nil, err
		}
		if unused := UnusedArguments(uri, vals); len(unused) > 0 {
			return nil, callErrorf("%s: arguments %s are not variables of %q (its variables: %s): drop them, or pass the template as uri", fn, render.QuoteSome(unused), uri, orNone(TemplateVariables(uri)))
		}
		if uri, err = ExpandTemplate(uri, vals); err != nil {
			return nil, callErrorf("%s: %v", fn, err)
		}
	}
	opts := render.PageOptions{Pattern: a.Pattern, Offset: offset, MaxBytes: maxBytes}
	// Check the paging arguments before asking the server anything.
	if _, err := render.PageText("", "", "", opts); err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	conn, err := r.Conn(server)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	// A traced body is the server's bytes, never a placeholder: with
	// bodies traced, the blobs are read whole.
	streams := !(r.tracing.Load() && r.bodies.Load())
	read, err := tracked(r, ctx, server, "resources/read", "resources/read", func(ctx context.Context) (rawRead, error) {
		return conn.readRaw(ctx, uri, streams)
	})
	if err != nil {
		return nil, err
	}
	defer read.long.Close()
	store, err := r.spillStore()
	if err != nil {
		return nil, err
	}
	res, err := render.ReadContentsFrom(store, server, read.contents, opts, read.long)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	out, err := render.Marshal(res)
	if err != nil {
		return nil, err
	}
	return withAudience(out, r.audienceOf(server, uri)), nil
}

// templateValues turns template arguments into strings: strings as they
// are, numbers and booleans in their JSON spelling; anything else is an error.
func templateValues(fn string, args map[string]any) (map[string]string, error) {
	vals := make(map[string]string, len(args))
	for k, v := range args {
		switch x := v.(type) {
		case string:
			vals[k] = x
		case json.Number:
			vals[k] = x.String()
		case bool:
			vals[k] = fmt.Sprint(x)
		default:
			return nil, callErrorf("%s: template argument %q must be a string, number or boolean, got %s", fn, k, jsonKindOf(v))
		}
	}
	return vals, nil
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// audienceOf looks the resource up in what is already listed for its
// audience annotation (advisory metadata, surfaced on reads and searches
// alike). A read does not list the catalog for it: on a server of 100,000
// resources that made reading one 221-byte resource take 3.85 s. The TUI
// and a model that searched first have the catalog listed.
func (r *Runtime) audienceOf(server, uri string) []string {
	if it, ok := r.cachedItem(server, KindResource, uri); ok {
		return it.Audience
	}
	return nil
}

// withAudience puts "audience" first in a rendered read, so who the content
// was meant for is stated before the payload.
func withAudience(out []byte, audience []string) []byte {
	if len(audience) == 0 || len(out) < 2 || out[0] != '{' {
		return out
	}
	a, err := render.Marshal(struct {
		Audience []string `json:"audience"`
	}{audience})
	if err != nil {
		return out
	}
	sep := ","
	if out[1] == '}' {
		sep = ""
	}
	return append(append(a[:len(a)-1:len(a)-1], sep...), out[1:]...)
}

func (r *Runtime) callInvoke(ctx context.Context, at callSite, args MetaArgs) ([]byte, error) {
	fn, server := at.fn(PrefixInvoke), at.server
	// The tool that runs is args.Tool, the one the permission decision
	// judged; a.Tool is decoded only so a wrong type is a teaching error.
	var a struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs(fn, args.Object, &a, invokeParams); err != nil {
		return nil, err
	}
	tool := args.Tool
	if tool == "" {
		return nil, callErrorf("%s: tool is required: find one with %s", fn, at.ref(PrefixSearch))
	}
	if r.ToolOff(server, tool) {
		return nil, callErrorf("%s: tool %q is switched off by the person (\"disabledTools\" of server %s): it cannot be called; use another tool mcp_search_%s finds, or ask the person to switch it on", fn, tool, server, FunctionSuffix(server))
	}
	var toolArgs map[string]any
	if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
		if err := decodeJSONNumbers(a.Arguments, &toolArgs); err != nil {
			return nil, callErrorf("%s: arguments must be a JSON object, got %s", fn, render.Ellipsize(string(a.Arguments), 80))
		}
	}
	// The tool's schema, from the catalog when it is listed, else from a
	// listing of tools only as far as this tool.
	it, found, cat, err := r.Item(ctx, server, KindTool, tool)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	if found && !ModelCallable(it) {
		return nil, callErrorf("%s: tool %q of %s is for its MCP App only (its _meta.ui.visibility is %q): the model cannot call it; use another tool %s finds", fn, tool, server, it.AppVisibility, at.ref(PrefixSearch))
	}
	if found {
		toolArgs = DropNullOptionals(it, toolArgs)
		// Arguments howl could not check go to the server, which judges them.
		if err := cat.CheckArguments(it, toolArgs); err != nil && !errors.As(err, new(*UncheckedError)) {
			return nil, callErrorf("%s: %v; see the schema with %s and tool %q", fn, err, at.ref(PrefixDescribe), tool)
		}
	} else if why := leftOut(cat, KindTool, tool); why != "" {
		return nil, callErrorf("%s: %s", fn, why)
	} else if cat.ToolsComplete() {
		return nil, callErrorf("%s: %v", fn, notFound(cat, KindTool, tool))
	}
	conn, err := r.Conn(server)
	if err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	raw, err := r.callTool(ctx, conn, server, tool, it.TaskSupport, toolArgs)
	if err != nil {
		return nil, err
	}
	store, err := r.spillStore()
	if err != nil {
		return nil, err
	}
	out, _, err := render.BoundToolResult(store, server, raw)
	if err != nil {
		return nil, &ServerError{Server: server, Method: "tools/call", Err: err}
	}
	return out, nil
}

// ToolsComplete reports whether the catalog's tool list can be trusted to
// be complete (tools were listed, without a warning), so an unknown name
// is a mistake rather than a gap: the call refuses it before the server,
// and the permission rules may treat it as not there.
func (cat *Catalog) ToolsComplete() bool {
	listed := false
	for _, k := range cat.Listed {
		listed = listed || k == KindTool
	}
	for _, w := range cat.Warnings {
		if w.Kind == KindTool && w.Item == "" {
			return false
		}
	}
	return listed
}

// leftOut is why the catalog left a listed item out on purpose, or "".
func leftOut(cat *Catalog, kind Kind, id string) string {
	for _, w := range cat.Warnings {
		if w.Kind == kind && w.Item == id {
			return w.Reason
		}
	}
	return ""
}

func decodeJSONNumbers(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	return dec.Decode(v)
}

func (r *Runtime) callPrompt(ctx context.Context, at callSite, args MetaArgs) ([]byte, error) {
	fn, server := at.fn(PrefixPrompt), at.server
	var a struct {
		Prompt    string         `json:"prompt"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := decodeArgs(fn, args.Object, &a, promptParams); err != nil {
		return nil, err
	}
	if a.Prompt == "" {
		return nil, callErrorf("%s: prompt is required: find one with %s", fn, at.ref(PrefixSearch))
	}
	vals := make(map[string]string, len(a.Arguments))
	var bad []string
	for k, v := range a.Arguments {
		s, ok := v.(string)
		if !ok {
			bad = append(bad, fmt.Sprintf("%q is %s", k, jsonKindOf(v)))
			continue
		}
		vals[k] = s
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, callErrorf("%s: prompt arguments are strings only (prompts have no argument schemas), but %s: pass them as strings, e.g. \"3\" not 3", fn, strings.Join(bad, ", "))
	}
	res, err := r.GetPrompt(ctx, server, a.Prompt, vals)
	if err != nil {
		var me *MissingArgumentsError
		if errors.As(err, &me) {
			return nil, callErrorf("%s: %v", fn, err)
		}
		if _, ok := err.(*CallError); ok {
			return nil, callErrorf("%s: %v", fn, err)
		}
		return nil, err
	}
	return render.Marshal(res)
}

// readSkill is mcp_read with "skill": load the skill (its SKILL.md) or
// read one of its files, each checked against the skill's listing.
func (r *Runtime) readSkill(ctx context.Context, fn, server, uri, skill, file, pattern string, off, max *json.Number) ([]byte, error) {
	switch {
	case uri != "":
		return nil, callErrorf("%s: give uri or skill, not both: a skill's files are read with \"skill\" and \"file\"", fn)
	case skill == "":
		return nil, callErrorf("%s: file needs skill: the skill (name or uri) the file belongs to", fn)
	}
	offset, err := intArg(fn, "offset", off)
	if err != nil {
		return nil, err
	}
	maxBytes, err := intArg(fn, "max_bytes", max)
	if err != nil {
		return nil, err
	}
	opts := render.PageOptions{Pattern: pattern, Offset: offset, MaxBytes: maxBytes}
	if _, err := render.PageText("", "", "", opts); err != nil {
		return nil, callErrorf("%s: %v", fn, err)
	}
	res, err := r.LoadSkill(ctx, server, skill, file, opts)
	if err != nil {
		var se *ServerError
		var ce *SkillCheckError
		if errors.As(err, &se) || errors.As(err, &ce) {
			return nil, err
		}
		return nil, callErrorf("%s: %v", fn, err)
	}
	return render.Marshal(res)
}
