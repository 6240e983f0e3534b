package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/howl-mcp/howl/render"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// noLoader refuses every external $ref: a server's schema is untrusted
// input and must never make howl read a file or fetch a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not followed", url)
}

// The bounds of howl's JSON Schema work for one tool. A validator applies
// a schema node once per path that reaches it, so a server can make a
// small schema cost exponential time and memory (definitions d0…dN, each
// "allOf" [d(k+1), d(k+1)], make 2^N applications to reject {"a":""}).
// howl counts before it validates, in steps bounded by these limits, and
// past them it does not validate: the call goes to the server unchecked,
// which is safe for a client because the server checks its own arguments.
const (
	// MaxSchemaNodes bounds the size of a tool's inputSchema with every
	// $ref expanded (a recursive reference counted once), measured when
	// the schema is compiled.
	MaxSchemaNodes = 10_000
	// MaxValidationSteps bounds one check: schema nodes applied to the
	// argument values, counted for the arguments at hand (an array's items
	// schema counts once per element) before validating.
	MaxValidationSteps = 100_000
)

// UncheckedError is what validation returns when howl did not check the
// arguments: the schema is over a bound, or does not compile. The call
// may go ahead (the server judges the arguments); a person should be told.
type UncheckedError struct{ Reason string }

func (e *UncheckedError) Error() string { return e.Reason }

// compiledSchema is a tool's input schema ready to validate against:
// sch is nil when there is nothing to check, or unchecked says why howl
// does not.
type compiledSchema struct {
	sch       *jsonschema.Schema
	unchecked string
}

// ValidateArguments checks a tool call's arguments against the tool's input
// schema before the call is sent: required arguments present and JSON types
// right (and the rest of the schema, through a JSON Schema validator). A
// schema that cannot be compiled, or that is over MaxSchemaNodes or
// MaxValidationSteps, does not block the call: the result is an
// *UncheckedError saying why, and the server gets to judge.
func ValidateArguments(tool CatalogItem, args map[string]any) error {
	return compileSchema(tool).validate(tool, args)
}

// compileSchema compiles a tool's input schema and measures it against
// MaxSchemaNodes.
func compileSchema(tool CatalogItem) compiledSchema {
	schema := tool.Schema
	if len(schema) == 0 || string(schema) == "null" {
		return compiledSchema{}
	}
	unchecked := func(format string, a ...any) compiledSchema {
		return compiledSchema{unchecked: fmt.Sprintf("tool %q's inputSchema %s; howl will not validate against it: the call goes to the server unchecked",
			render.Ellipsize(tool.ID, 80), fmt.Sprintf(format, a...))}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return unchecked("is not valid JSON (%s)", render.Ellipsize(err.Error(), 200))
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "howl://tool-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return unchecked("cannot be read (%s)", render.Ellipsize(err.Error(), 200))
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return unchecked("does not compile (%s)", render.Ellipsize(err.Error(), 200))
	}
	if n := expandedSize(sch, MaxSchemaNodes); n > MaxSchemaNodes {
		return unchecked("expands to more than %d nodes through $ref (MaxSchemaNodes)", MaxSchemaNodes)
	}
	return compiledSchema{sch: sch}
}

// CheckArguments is ValidateArguments for one of the catalog's tools,
// compiling its schema once per catalog (compiling costs more than the
// call itself).
func (c *Catalog) CheckArguments(tool CatalogItem, args map[string]any) error {
	v, ok := c.schemas.Load(tool.ID)
	if !ok {
		v, _ = c.schemas.LoadOrStore(tool.ID, compileSchema(tool))
	}
	return v.(compiledSchema).validate(tool, args)
}

func (cs compiledSchema) validate(tool CatalogItem, args map[string]any) error {
	if cs.unchecked != "" {
		return &UncheckedError{cs.unchecked}
	}
	if cs.sch == nil {
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
	if n := validationSteps(cs.sch, inst, MaxValidationSteps); n > MaxValidationSteps {
		return &UncheckedError{fmt.Sprintf("checking these arguments against tool %q's inputSchema takes more than %d steps (MaxValidationSteps); howl did not validate them: the call goes to the server unchecked",
			render.Ellipsize(tool.ID, 80), MaxValidationSteps)}
	}
	verr := cs.sch.Validate(inst)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return errors.New(render.BoundMessage(fmt.Sprintf("arguments for tool %q do not match its input schema: %v", render.Ellipsize(tool.ID, 80), verr)))
	}
	return errors.New(render.BoundMessage(fmt.Sprintf("arguments for tool %q do not match its input schema: %s", render.Ellipsize(tool.ID, 80), strings.Join(leafErrors(ve), "; "))))
}

// maxLeafBytes bounds one reason in a validation error; the whole error is
// bounded by render.MaxMessageBytes.
const maxLeafBytes = 400

// leafReason says why one value failed. Lists that come from the schema
// (an enum's values, the required names) are quoted a few at a time: an
// enum of 200000 values must not become a 2 MB message.
func leafReason(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		var shown []string
		for _, v := range k.Want[:min(len(k.Want), render.MaxQuotedValues)] {
			b, _ := json.Marshal(v)
			shown = append(shown, string(b))
		}
		return "value must be one of " + render.ListSome(shown, len(k.Want))
	case *kind.Required:
		return "missing required properties " + render.QuoteSome(k.Missing)
	}
	return k.LocalizedString(printer())
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
			out = append(out, render.Ellipsize(fmt.Sprintf("%s: %s", at, leafReason(e.ErrorKind)), maxLeafBytes))
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

// DropNullOptionals removes the arguments that are null where the tool's
// schema neither requires them nor allows null: a caller's way of saying
// "not given" (models told every parameter is nullable say it so), which
// the server must then not see as a value of the wrong type. A required
// argument's null, or one the schema allows, stays for the check.
func DropNullOptionals(tool CatalogItem, args map[string]any) map[string]any {
	var nulls []string
	for k, v := range args {
		if v == nil {
			nulls = append(nulls, k)
		}
	}
	if len(nulls) == 0 {
		return args
	}
	props := map[string]SchemaProp{}
	for _, p := range SchemaProps(tool.Schema) {
		props[p.Name] = p
	}
	out := args
	for _, k := range nulls {
		p, declared := props[k]
		if !declared || p.Type == "" || p.Nullable || p.Required {
			continue
		}
		if len(out) == len(args) { // copy before the first removal: the caller's map stays
			out = maps.Clone(args)
		}
		delete(out, k)
	}
	return out
}
