package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// doublingRecursion is a small, recursive inputSchema that applies n
// twice at every level of nesting: 2^depth applications for an argument
// {"c":{"c":...}} depth levels deep.
const doublingRecursion = `{"$ref":"#/$defs/n","$defs":{
	"n":{"allOf":[{"$ref":"#/$defs/m"},{"$ref":"#/$defs/m"}]},
	"m":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}}}}}`

func nested(depth int) map[string]any {
	v := map[string]any{}
	for range depth {
		v = map[string]any{"c": v}
	}
	return v
}

// allocatedBy is the bytes f allocates on the heap.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxCheckAlloc is what checking one call's arguments may allocate here.
const maxCheckAlloc = 32 << 20

func TestAnExponentialSchemaIsRefusedAtCompileTimeInBoundedMemory(t *testing.T) {
	for _, n := range []int{16, 22} {
		tool := CatalogItem{Kind: KindTool, ID: "exponential", Schema: mcptest.ExponentialSchema(n)}
		var err error
		alloc := allocatedBy(func() { err = ValidateArguments(tool, map[string]any{"a": ""}) })
		t.Logf("n=%d: %.1f MB allocated: %v", n, float64(alloc)/(1<<20), err)
		if alloc > maxCheckAlloc {
			t.Fatalf("n=%d: checking {\"a\":\"\"} allocated %d bytes, over %d", n, alloc, maxCheckAlloc)
		}
		var ue *UncheckedError
		if !errors.As(err, &ue) {
			t.Fatalf("n=%d: got %v, want an UncheckedError", n, err)
		}
		want := fmt.Sprintf(`tool "exponential"'s inputSchema expands to more than %d nodes through $ref (MaxSchemaNodes); howl will not validate against it: the call goes to the server unchecked`, MaxSchemaNodes)
		if err.Error() != want {
			t.Errorf("n=%d: message %q, want %q", n, err, want)
		}
		if compileSchema(tool).unchecked == "" {
			t.Errorf("n=%d: the schema was not refused when compiled", n)
		}
	}
}

func TestArgumentsThatWouldTakeTooManyValidationStepsAreSentUnchecked(t *testing.T) {
	tool := CatalogItem{Kind: KindTool, ID: "tree", Schema: json.RawMessage(doublingRecursion)}
	if u := compileSchema(tool).unchecked; u != "" {
		t.Fatalf("the recursive schema itself is small, yet it was refused: %s", u)
	}
	if err := ValidateArguments(tool, nested(3)); err != nil {
		t.Fatalf("shallow arguments: %v", err)
	}
	if err := ValidateArguments(tool, map[string]any{"c": 5}); err == nil || errors.As(err, new(*UncheckedError)) {
		t.Fatalf("wrong shallow arguments: got %v, want a validation error", err)
	}
	for _, depth := range []int{17, 40} {
		var err error
		alloc := allocatedBy(func() { err = ValidateArguments(tool, nested(depth)) })
		t.Logf("depth %d: %.1f MB allocated: %v", depth, float64(alloc)/(1<<20), err)
		if alloc > maxCheckAlloc {
			t.Fatalf("depth %d: checking allocated %d bytes, over %d", depth, alloc, maxCheckAlloc)
		}
		if !errors.As(err, new(*UncheckedError)) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d steps (MaxValidationSteps)", MaxValidationSteps)) {
			t.Fatalf("depth %d: got %v, want the arguments sent unchecked", depth, err)
		}
	}
}

func TestAToolWhoseSchemaHowlWillNotValidateStaysCallable(t *testing.T) {
	rt := startRuntime(t, fixture("schemas"))
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_schemas", json.RawMessage(`{"tool":"exponential","arguments":{"a":""}}`))
	if err != nil || !strings.Contains(string(out), "ran exponential") {
		t.Fatalf("the call did not reach the server: %s %v", out, err)
	}
}

// serveSchemas serves mcptest.SchemasServer over stdio.
func serveSchemas() int {
	if err := demo.ServeStdio(context.Background(), mcptest.SchemasServer(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestErrorsBuiltFromServerDataReachTheModelBounded: each error a model
// can get back that quotes what a server declared (an enum's values, a
// prompt's arguments, tool names, the server's own error text) is at most
// render.MaxMessageBytes, quotes a few values and says how many.
func TestErrorsBuiltFromServerDataReachTheModelBounded(t *testing.T) {
	rt := startRuntime(t, fixture("schemas"))
	cases := []struct {
		name, fn, args string
		want           []string
	}{
		{"enum", "mcp_invoke_schemas", `{"tool":"huge-enum","arguments":{"colour":"mauve"}}`,
			[]string{`argument colour: value must be one of "c000000", "c000001", "c000002" … (200000 values)`}},
		{"prompt arguments", "mcp_prompt_schemas", `{"prompt":"many-args"}`,
			[]string{`is missing required arguments: "arg00000" (a long description`, `"arg00002" (a long`, `… (5000 values); pass each as a string`}},
		{"near names", "mcp_describe_schemas", `{"tool":"huge-tool"}`, []string{`did you mean "huge-tool-xxxxxxxx`}},
		{"read error", "mcp_read_schemas", `{"uri":"hostile://fails"}`, []string{"schemas answered resources/read with an error: internal error: the server says no.", "(MaxMessageBytes)]"}},
	}
	for _, c := range cases {
		_, err := rt.CallMeta(context.Background(), c.fn, json.RawMessage(c.args))
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		t.Logf("%s: %d bytes: %s", c.name, len(msg), render.Ellipsize(msg, 400))
		if len(msg) > render.MaxMessageBytes {
			t.Errorf("%s: %d bytes, over MaxMessageBytes (%d)", c.name, len(msg), render.MaxMessageBytes)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: lacks %q", c.name, w)
			}
		}
	}
}
