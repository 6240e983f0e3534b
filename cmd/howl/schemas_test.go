package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

// schemasFixtureArg makes the test binary serve schemasFixture (TestMain).
const schemasFixtureArg = "schemas-fixture"

// exponentialSchema is an inputSchema whose definitions d0…dn each say
// allOf [d(k+1), d(k+1)]: validating "a" applies dn 2^n times.
func exponentialSchema(n int) json.RawMessage {
	defs := map[string]any{fmt.Sprintf("d%d", n): map[string]any{"type": "integer"}}
	for k := 0; k < n; k++ {
		ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", k+1)}
		defs[fmt.Sprintf("d%d", k)] = map[string]any{"allOf": []any{ref, ref}}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs,
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/d0"}}})
	return b
}

// hugeEnumSchema is an inputSchema whose required "colour" is one of
// 200000 values, "c000000" to "c199999".
func hugeEnumSchema() json.RawMessage {
	colours := make([]string, 200_000)
	for i := range colours {
		colours[i] = fmt.Sprintf("c%06d", i)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"colour"},
		"properties": map[string]any{"colour": map[string]any{"type": "string", "enum": colours}}})
	return b
}

// serveSchemasFixture serves server "schemas" over stdio: tool
// "exponential" has exponentialSchema(22), tool "huge-enum" a required
// "colour" whose enum has 200000 values. Each tool answers "ran <name>"
// without looking at its arguments.
func serveSchemasFixture() int {
	s := server.NewMCPServer("schemas", "1.0.0", server.WithToolCapabilities(false))
	ran := func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ran " + req.Params.Name), nil
	}
	s.AddTool(mcpgo.NewToolWithRawSchema("exponential", "validation doubles at every definition", exponentialSchema(22)), ran)
	s.AddTool(mcpgo.NewToolWithRawSchema("huge-enum", "one of 200000 colours", hugeEnumSchema()), ran)
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// useSchemasFixture isolates the test with a config whose one server,
// "schemas", is serveSchemasFixture.
func useSchemasFixture(t *testing.T) {
	t.Helper()
	dir := isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"schemas": map[string]any{"command": exe, "args": []string{schemasFixtureArg}}}})
	path := filepath.Join(dir, "schemas.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOWL_CONFIG", path)
}

func TestHowlCallSendsArgumentsItWillNotValidateAndSaysSo(t *testing.T) {
	useSchemasFixture(t)
	out, errOut, code := howl(t, "call", "schemas", "exponential", "a=x")
	if code != 0 || !strings.Contains(out, "ran exponential") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, `howl: warning: tool "exponential"'s inputSchema expands to more than 10000 nodes through $ref (MaxSchemaNodes)`) {
		t.Errorf("stderr does not warn that the arguments went unchecked: %q", errOut)
	}
}

// TestHowlCallPrintsAValidationErrorAboutAHugeEnumBounded: the stderr of
// a call the 200000-value enum refuses is one line of at most
// render.MaxMessageBytes plus "howl: " and the newline.
func TestHowlCallPrintsAValidationErrorAboutAHugeEnumBounded(t *testing.T) {
	useSchemasFixture(t)
	_, errOut, code := howl(t, "call", "schemas", "huge-enum", "colour=mauve")
	t.Logf("exit %d, %d bytes: %s", code, len(errOut), render.Ellipsize(errOut, 400))
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if max := len("howl: \n") + render.MaxMessageBytes; len(errOut) > max {
		t.Fatalf("stderr is %d bytes, over %d", len(errOut), max)
	}
	if !strings.Contains(errOut, `argument colour: value must be one of "c000000", "c000001", "c000002" … (200000 values)`) {
		t.Errorf("stderr does not quote a few values and the count: %s", errOut)
	}
}
