package demo

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tool arguments are checked by hand so that a bad one becomes an isError
// result that says what was wrong, what arrived and what to send instead.
// Nothing here panics on any input.

// args reads the arguments of one tool call.
type args struct {
	tool string
	m    map[string]any
}

func argsOf(req mcp.CallToolRequest) args {
	return args{tool: req.Params.Name, m: req.GetArguments()}
}

// argError is the isError result for a bad argument.
func (a args) argError(name, want string, got any, example string) *mcp.CallToolResult {
	what := "is missing"
	if got != nil {
		what = "must be " + want + ", got " + describe(got)
	} else {
		what += " (it must be " + want + ")"
	}
	return mcp.NewToolResultError(fmt.Sprintf("%s: argument %q %s: pass e.g. %s", a.tool, name, what, example))
}

// describe renders a received value for an error message, briefly.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	if len(b) > 60 {
		b = append(b[:57:57], "..."...)
	}
	kind := "a value"
	switch v.(type) {
	case string:
		kind = "a string"
	case float64, json.Number:
		kind = "a number"
	case bool:
		kind = "a boolean"
	case []any:
		kind = "an array"
	case map[string]any:
		kind = "an object"
	}
	return kind + " " + string(b)
}

// str reads a string. With required false a missing argument gives def.
func (a args) str(name string, required bool, def, example string) (string, *mcp.CallToolResult) {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			return "", a.argError(name, "a string", nil, example)
		}
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", a.argError(name, "a string", v, example)
	}
	return s, nil
}

// num reads a finite number.
func (a args) num(name, example string) (float64, *mcp.CallToolResult) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return 0, a.argError(name, "a number", nil, example)
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, a.argError(name, "a number", v, example)
	}
	return f, nil
}

// integer reads an optional whole number in [lo, hi], def when missing.
func (a args) integer(name string, def, lo, hi int, example string) (int, *mcp.CallToolResult) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	want := fmt.Sprintf("an integer from %d to %d", lo, hi)
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, a.argError(name, want, v, example)
	}
	return int(f), nil
}

// boolean reads an optional boolean, def when missing.
func (a args) boolean(name string, def bool, example string) (bool, *mcp.CallToolResult) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, a.argError(name, "a boolean", v, example)
	}
	return b, nil
}

// oneOf reads an optional string that must be one of choices, def when missing.
func (a args) oneOf(name, def string, choices []string, example string) (string, *mcp.CallToolResult) {
	s, bad := a.str(name, false, def, example)
	if bad != nil {
		return "", bad
	}
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", a.argError(name, fmt.Sprintf("one of %q", choices), s, example)
}
