package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/howl-mcp/howl/render"
)

// MaxDescribeSchema bounds a tool schema carried by describe; a larger one
// is replaced by a note naming its size.
const MaxDescribeSchema = 204800

// DescribeResult is the full description of one catalog item: what
// mcp_describe_<server> and `howl describe` return. Fields that do not apply
// to the item's kind are omitted.
type DescribeResult struct {
	// Note, when set, says what was clamped; it leads the result.
	Note        string `json:"note,omitempty"`
	Kind        Kind   `json:"kind"`
	Server      string `json:"server"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Usage says which meta-function takes this item next, and how.
	Usage string `json:"usage"`

	InputSchema  json.RawMessage  `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage  `json:"output_schema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	TaskSupport  string           `json:"task_support,omitempty"`
	// AppURI is the tool's MCP App, or the resource itself when it is one.
	AppURI string `json:"app_uri,omitempty"`

	URI          string   `json:"uri,omitempty"`
	URITemplate  string   `json:"uri_template,omitempty"`
	Variables    []string `json:"variables,omitempty"`
	MIMEType     string   `json:"mime_type,omitempty"`
	Size         *int64   `json:"size,omitempty"`
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"last_modified,omitempty"`

	// Arguments is set (possibly empty) for prompts: names, descriptions and
	// required flags. Prompt arguments are strings; there is no schema.
	Arguments *[]PromptArgument `json:"arguments,omitempty"`

	// A skill's frontmatter and files, from its listing (none is read).
	Frontmatter json.RawMessage `json:"frontmatter,omitempty"`
	Files       []SkillFile     `json:"files,omitempty"`
	Dynamic     bool            `json:"dynamic,omitempty"`
}

// Describe returns the description of the item of kind (default tool) with id.
// A miss is a teaching error: it names near matches, and the kind the id
// exists under when the caller asked for the wrong one.
func Describe(cat *Catalog, kind Kind, id string) (DescribeResult, error) {
	if kind == "" {
		kind = KindTool
	}
	if _, ok := kindList[kind]; !ok {
		return DescribeResult{}, fmt.Errorf("unknown kind %q: use tool, resource, resource_template, prompt or skill", kind)
	}
	it, ok := cat.Lookup(kind, id)
	if !ok && kind == KindSkill {
		var err error
		if it, err = FindSkill(cat, id); err != nil {
			return DescribeResult{}, err
		}
		ok = true
	}
	if !ok {
		return DescribeResult{}, notFound(cat, kind, id)
	}
	d := DescribeResult{Kind: it.Kind, Server: it.Server, ID: it.ID, Name: it.Name, Title: it.Title, Description: it.Description, AppURI: it.AppURI}
	s := FunctionSuffix(it.Server)
	switch it.Kind {
	case KindTool:
		d.InputSchema, d.OutputSchema, d.Annotations, d.TaskSupport = it.Schema, it.OutputSchema, it.Annotations, it.TaskSupport
		if len(d.InputSchema) > MaxDescribeSchema {
			d.Note = fmt.Sprintf("input_schema omitted: %d bytes is over MaxDescribeSchema (%d)", len(d.InputSchema), MaxDescribeSchema)
			d.InputSchema = nil
		}
		if len(d.OutputSchema) > MaxDescribeSchema {
			d.Note = strings.TrimPrefix(d.Note+"; ", "; ") + fmt.Sprintf("output_schema omitted: %d bytes is over MaxDescribeSchema (%d)", len(d.OutputSchema), MaxDescribeSchema)
			d.OutputSchema = nil
		}
		d.Usage = fmt.Sprintf("call it with mcp_invoke_%s {\"tool\": %q, \"arguments\": {...}} matching input_schema", s, it.ID)
	case KindResource:
		d.URI, d.MIMEType, d.Size, d.Audience, d.Priority, d.LastModified = it.URI, it.MIMEType, it.Size, it.Audience, it.Priority, it.LastModified
		d.Usage = fmt.Sprintf("read it with mcp_read_%s {\"uri\": %q}; add \"pattern\" to grep text, \"offset\"/\"max_bytes\" to page", s, it.URI)
	case KindTemplate:
		d.URITemplate, d.Variables, d.MIMEType, d.Audience, d.Priority = it.URI, it.Variables, it.MIMEType, it.Audience, it.Priority
		ex := make([]string, 0, len(it.Variables))
		for _, v := range it.Variables {
			ex = append(ex, fmt.Sprintf("%q: \"...\"", v))
		}
		d.Usage = fmt.Sprintf("read it with mcp_read_%s {\"uri\": %q, \"arguments\": {%s}}", s, it.URI, strings.Join(ex, ", "))
	case KindPrompt:
		args := it.Arguments
		if args == nil {
			args = []PromptArgument{}
		}
		d.Arguments = &args
		d.Usage = fmt.Sprintf("get it with mcp_prompt_%s {\"prompt\": %q, \"arguments\": {...}} (string values; required ones must be given)", s, it.ID)
	case KindSkill:
		d.URI, d.MIMEType, d.Size = it.URI, it.MIMEType, it.Size
		d.Frontmatter, d.Files, d.Dynamic = it.Skill.Frontmatter, it.Skill.Files, it.Skill.Dynamic
		d.Usage = fmt.Sprintf("load it with mcp_read_%s {\"skill\": %q}: its SKILL.md, checked against this listing; then a file of it with \"file\"", s, it.URI)
	}
	return d, nil
}

func notFound(cat *Catalog, kind Kind, id string) error {
	for _, k := range Kinds {
		if k != kind {
			if _, ok := cat.Lookup(k, id); ok {
				return fmt.Errorf("no %s %q on %s, but there is a %s with that id: describe it with kind=%q", kind, render.Ellipsize(id, render.MaxQuotedValueBytes), cat.Server, k, k)
			}
		}
	}
	var near []string
	for _, it := range cat.Items {
		if it.Kind != kind {
			continue
		}
		if strings.Contains(strings.ToLower(it.ID), strings.ToLower(id)) || strings.Contains(strings.ToLower(id), strings.ToLower(it.ID)) ||
			editDistance(strings.ToLower(it.ID), strings.ToLower(id)) <= 2 {
			near = append(near, it.ID)
		}
	}
	sort.Strings(near)
	if len(near) > 5 {
		near = near[:5]
	}
	msg := fmt.Sprintf("no %s %q on %s (%d %ss listed)", kind, render.Ellipsize(id, render.MaxQuotedValueBytes), cat.Server, cat.Count(kind), kind)
	if len(near) > 0 {
		return fmt.Errorf("%s: did you mean %s?", msg, render.QuoteSome(near))
	}
	return fmt.Errorf("%s: find the id with mcp_search_%s first", msg, FunctionSuffix(cat.Server))
}
