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

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

// exponentialSchema is an inputSchema whose definitions d0…dn each say
// allOf [d(k+1), d(k+1)]: a validator applies dn 2^n times to the value
// of "a", and every application fails for a string.
func exponentialSchema(n int) json.RawMessage {
	defs := map[string]any{fmt.Sprintf("d%d", n): map[string]any{"type": "integer"}}
	for k := 0; k < n; k++ {
		ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", k+1)}
		defs[fmt.Sprintf("d%d", k)] = map[string]any{"allOf": []any{ref, ref}}
	}
	b, _ := json.Marshal(map[string]any{
		"type": "object", "$defs": defs,
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/d0"}},
	})
	return b
}

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
		tool := CatalogItem{Kind: KindTool, ID: "exponential", Schema: exponentialSchema(n)}
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

// serveSchemas serves tools whose input schemas are hostile to a client
// that validates: "exponential" (exponentialSchema(22)) and "huge-enum"
// (a property "colour" whose enum has hugeEnum values). Each answers
// "ran <name>" without looking at its arguments.
func serveSchemas() int {
	s := server.NewMCPServer("schemas", "1.0.0", server.WithToolCapabilities(false))
	ran := func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ran " + req.Params.Name), nil
	}
	s.AddTool(mcpgo.NewToolWithRawSchema("exponential", "validation doubles at every definition", exponentialSchema(22)), ran)
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
