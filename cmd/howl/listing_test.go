package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/mcp/mcptest"
	"github.com/howl-mcp/howl/render"
)

// lsJSON is what `howl ls --json` prints, as a script reads it.
type lsJSON struct {
	Coverage string
	Servers  []serverListing
	Items    []mcp.CatalogItem
}

func TestListingIsWrittenAnItemAtATimeExactlyAsWhole(t *testing.T) {
	size := int64(12)
	items := []*mcp.ListedItem{
		mcp.NewListedItem(&mcp.CatalogItem{Kind: mcp.KindTool, Server: "s", ID: "echo", Name: "echo", Description: "line\nbreak \u009b and \u202e", Schema: json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)}),
		mcp.NewListedItem(&mcp.CatalogItem{Kind: mcp.KindResource, Server: "s", ID: "demo://x", Name: "x", URI: "demo://x", MIMEType: "text/plain", Size: &size, Audience: []string{"user"}}),
		mcp.NewListedItem(&mcp.CatalogItem{Kind: mcp.KindPrompt, Server: "s", ID: "p", Name: "p <&>", Arguments: []mcp.PromptArgument{{Name: "a", Required: true}}}),
	}
	one := 1
	servers := []serverListing{{Name: "s", State: mcp.StateReady, Counts: map[mcp.Kind]*int{mcp.KindTool: &one, mcp.KindPrompt: nil}, Warnings: []mcp.Warning{{Kind: mcp.KindTool, Reason: "x\x7f"}}}}
	for _, l := range []listing{
		{Coverage: "3 items", Servers: servers, Items: items},
		{Coverage: "0 items", Servers: servers, Items: []*mcp.ListedItem{}},
		{Coverage: "0 items", Items: []*mcp.ListedItem{}},
	} {
		var whole, streamed bytes.Buffer
		if err := writeJSON(&whole, l); err != nil {
			t.Fatal(err)
		}
		if err := writeListing(&streamed, l); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("streamed:\n%s\nwhole:\n%s", streamed.String(), whole.String())
		}
	}
}

// TestListedItemIsWrittenAsEncodingJSONWritesIt fills every field of a
// catalog item (a field added later too: it is set by reflection) with
// values that need escaping, and holds the hand-written item encoding of
// `howl ls --json` to what encoding/json writes and
// render.EscapeTerminalControls escapes, byte for byte.
func TestListedItemIsWrittenAsEncodingJSONWritesIt(t *testing.T) {
	hard := "a\"b\\c\x01\b\f\n\r\t<&> \u2028\u2029 \x7f \u009b \u202e é\xff界"
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(hard)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(-1234567890123)
		case reflect.Float64:
			v.SetFloat(0.000001234)
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type() == reflect.TypeFor[json.RawMessage]() {
				v.SetBytes([]byte(" {\"type\": \"object\",\n \"properties\": {\"m\": {\"enum\": [1, 2.5e3, \"<&>\\u2028\"]}}, \"e\": {}, \"a\": []}\n"))
				return
			}
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			fill(v.Index(0))
			fill(v.Index(1))
		}
	}
	var full mcp.CatalogItem
	fill(reflect.ValueOf(&full).Elem())
	for _, it := range []*mcp.CatalogItem{
		&full,
		{Kind: mcp.KindResource, Server: "s", ID: "demo://x", Name: "x"},
		{Kind: mcp.KindTool, ID: "", Schema: json.RawMessage("null"), Off: true},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent(itemIndent, "  ")
		if err := enc.Encode(it); err != nil {
			t.Fatal(err)
		}
		got, err := newItemWriter().appendItem(nil, it)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != strings.TrimSuffix(string(render.EscapeTerminalControls(want.Bytes())), "\n") {
			t.Errorf("the item is written as\n%s\nencoding/json writes\n%s", got, want.String())
		}
	}
}

// diesOnToolsListArg makes the test binary a server that answers the
// handshake and exits with status 3, its last words on stderr, on
// tools/list (mcptest.ServeDiesOnToolsList).
const diesOnToolsListArg = "dies-on-tools-list"

// diesOnToolsCallArg makes the test binary a server that lists
// mcptest.CrashTool and exits with status 3, its last words on stderr,
// when it is called.
const diesOnToolsCallArg = "dies-on-tools-call"

// TestCallOnAServerThatDiesSaysHowAndItsLastWords: `howl call` on a tool
// whose server dies answering it says how the server ended and prints
// its last stderr lines, as ls does, and exits 1.
func TestCallOnAServerThatDiesSaysHowAndItsLastWords(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg := filepath.Join(home, "dies.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"dies":{"command":`+quoteJSON(exe)+`,"args":["`+diesOnToolsCallArg+`"]}}}`), 0o600)
	_, errOut, code := howl(t, "--config", cfg, "call", "dies", mcptest.CrashTool)
	want := fmt.Sprintf("howl: tools/call got no answer from dies: the connection closed before the answer came: server process exited with status %d during tools/call: reconnect it to try again\n", mcptest.DiesOnToolsListStatus) +
		"  stderr| loading tools\n" +
		"  stderr| " + mcptest.DiesOnToolsListWords + "\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, errOut, want)
	}
}

// TestLsShowsAServerThatDiesWhileListedAsFailed: `howl ls` and its --json
// show a server that exits while it answers tools/list as failed, with
// how it ended, during what and its last stderr lines (not ready with a
// "transport closed" warning), and still list the other server.
func TestLsShowsAServerThatDiesWhileListedAsFailed(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg := filepath.Join(home, "dies.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{
		"dies":{"command":`+quoteJSON(exe)+`,"args":["`+diesOnToolsListArg+`"]},
		"demo":{"command":`+quoteJSON(exe)+`,"args":["demo-server"]}}}`), 0o600)
	want := fmt.Sprintf("server process exited with status %d during tools/list: reconnect it to try again", mcptest.DiesOnToolsListStatus)

	out, errOut, code := howl(t, "--config", cfg, "ls")
	if code != 0 {
		t.Errorf("exit %d (%s): one server of two listed is not a failure of ls", code, errOut)
	}
	for _, line := range []string{
		"from 1 of 2 servers; 1 servers failed",
		"  dies: failed " + want + "\n",
		"    stderr| " + mcptest.DiesOnToolsListWords + "\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("ls does not say %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "transport closed") || strings.Contains(out, "dies: warning") {
		t.Errorf("ls shows the dead server's listing warning, not its failure:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^tool +demo +echo `).MatchString(out) {
		t.Errorf("ls does not list the demo's tools:\n%.2000s", out)
	}

	out, errOut, code = howl(t, "--config", cfg, "ls", "--json")
	var l lsJSON
	if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
		t.Fatalf("ls --json: exit %d, %v: %s", code, err, errOut)
	}
	byName := map[string]serverListing{}
	for _, s := range l.Servers {
		byName[s.Name] = s
	}
	dies, demo := byName["dies"], byName["demo"]
	if dies.State != mcp.StateFailed || dies.Reason != want || !strings.Contains(dies.StderrTail, mcptest.DiesOnToolsListWords) ||
		len(dies.Warnings) != 0 || dies.Counts != nil {
		t.Errorf("ls --json shows the dead server as %+v; want failed: %q, with its stderr tail", dies, want)
	}
	if demo.State != mcp.StateReady || demo.Counts[mcp.KindTool] == nil || *demo.Counts[mcp.KindTool] == 0 {
		t.Errorf("ls --json shows the demo as %+v; want ready with its tools counted", demo)
	}
	for _, it := range l.Items {
		if it.Server != "demo" {
			t.Errorf("an item of %s listed: %+v", it.Server, it)
		}
	}
}

// quoteJSON is s as a JSON string (a Windows path's backslashes escaped).
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
