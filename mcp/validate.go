package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// noLoader refuses every external $ref: a server's schema is untrusted
// input and must never make howl read a file or fetch a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not followed", url)
}

// ValidateArguments checks a tool call's arguments against the tool's input
// schema before the call is sent: required arguments present and JSON types
// right (and the rest of the schema, through a JSON Schema validator). A
// schema that itself cannot be compiled does not block the call: the server
// gets to judge.
func ValidateArguments(tool CatalogItem, args map[string]any) error {
	if len(tool.Schema) == 0 || string(tool.Schema) == "null" {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema))
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "howl://tool-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	inst := any(map[string]any{})
	if args != nil {
		// Round-trip through JSON so numbers are the validator's own type.
		b, _ := json.Marshal(args)
		if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(b)); err != nil {
			return fmt.Errorf("arguments are not valid JSON: %v", err)
		}
	}
	verr := sch.Validate(inst)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return fmt.Errorf("arguments for tool %q do not match its input schema: %v", tool.ID, verr)
	}
	return fmt.Errorf("arguments for tool %q do not match its input schema: %s", tool.ID, strings.Join(leafErrors(ve), "; "))
}

// leafErrors flattens a validation error tree into "at /path: reason" lines.
func leafErrors(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			if at == "/" {
				at = "the arguments object"
			} else {
				at = "argument " + strings.TrimPrefix(at, "/")
			}
			out = append(out, fmt.Sprintf("%s: %s", at, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("and %d more", len(out)-10))
	}
	return out
}
