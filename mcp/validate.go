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
	return validateWith(compileSchema(tool.Schema), tool, args)
}

// compileSchema compiles a tool's input schema; nil when there is none or
// it does not compile (then the server judges the arguments).
func compileSchema(schema json.RawMessage) *jsonschema.Schema {
	if len(schema) == 0 || string(schema) == "null" {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
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
	return sch
}

// validate checks arguments for one of the catalog's tools, compiling its
// schema once per catalog (compiling costs more than the call itself).
func (c *Catalog) validate(tool CatalogItem, args map[string]any) error {
	v, ok := c.schemas.Load(tool.ID)
	if !ok {
		v, _ = c.schemas.LoadOrStore(tool.ID, compileSchema(tool.Schema))
	}
	return validateWith(v.(*jsonschema.Schema), tool, args)
}

func validateWith(sch *jsonschema.Schema, tool CatalogItem, args map[string]any) error {
	if sch == nil {
		return nil
	}
	var err error
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
