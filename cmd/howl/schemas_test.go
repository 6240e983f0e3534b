package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// schemasFixtureArg makes the test binary serve schemasFixture (TestMain).
const schemasFixtureArg = "schemas-fixture"

// serveSchemasFixture serves mcptest.SchemasServer over stdio.
func serveSchemasFixture() int {
	if err := demo.ServeStdio(context.Background(), mcptest.SchemasServer(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// useSchemasFixture isolates the test with a config whose one server is
// mcptest.SchemasServer, "schemas".
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
