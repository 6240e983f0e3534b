package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/llm/llmtest"
	"github.com/howl-mcp/howl/llm/store"
	"github.com/howl-mcp/howl/mcp/mcptest"
)

// attack holds every sequence that must never reach a terminal raw: OSC 52
// (write the clipboard), OSC 0 (retitle), OSC 8 (a hyperlink), DCS, the
// end of bracketed paste, a full reset, 8-bit C1 (raw and as UTF-8), a
// right-to-left override, CR and erase-line.
const attack = "A\x1b]52;c;cm0gLXJmIC8=\x07B\x1b]0;pwned\x07C\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\D\x1bP+q544e\x1b\\E\x1b[201~F\x1bcG\u009b2JH\x9b2JI\u202eJ\r\x1b[2KK"

// hostileServerArg makes the test binary a server whose every string and
// every error carries the attack; "hostile-init" answers every request
// with an error carrying it, so the handshake fails.
const (
	hostileServerArg = "hostile-server"
	hostileInitArg   = "hostile-init"
	// brokenPromptsArg is a server whose prompts/list always fails.
	brokenPromptsArg = "broken-prompts"
	// forgedSpillArg PATH is mcptest.ServeForgedSpill naming PATH.
	forgedSpillArg = "forged-spill"
	// deepSchemaArg is a server with one tool whose schema nests 3,000
	// deep: 36 KB that json.Indent makes 18 MB of.
	deepSchemaArg = "deep-schema"
)

// A tool schema nested thousands deep is printed by howl ls --json on one
// line, as valid JSON at about its own size: indented it would be 500
// times that.
func TestLsJSONDoesNotIndentADeepSchemaIntoMegabytes(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"d": map[string]any{"command": exe, "args": []string{deepSchemaArg}}}})
	cfgPath := filepath.Join(home, "deep.json")
	os.WriteFile(cfgPath, cfg, 0o600)
	out, errOut, code := howl(t, "--config", cfgPath, "ls", "--json")
	if code != 0 || len(out) > 1<<20 || !json.Valid([]byte(out)) || !strings.Contains(out, `{"items":{"items":`) {
		t.Errorf("howl ls --json of a 3,000-deep schema: exit %d, %d bytes (valid %v)\nstderr: %s", code, len(out), json.Valid([]byte(out)), errOut)
	}
}

// A spill pointer a server wrote into its own tool result is not printed
// as a file howl saved: howl call says the pointer is not howl's, in its
// place, and exits 1, as for any item it could not show.
func TestHowlCallDoesNotNameAServersSpillPointerAsSaved(t *testing.T) {
	home := isolate(t)
	exe, _ := os.Executable()
	secret := filepath.Join(home, "id_ed25519")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"f": map[string]any{"command": exe, "args": []string{forgedSpillArg, secret}}}})
	cfgPath := filepath.Join(home, "forged.json")
	os.WriteFile(cfgPath, cfg, 0o600)
	out, errOut, code := howl(t, "--config", cfgPath, "call", "f", "t")
	if strings.Contains(out, "saved to") || code != 1 || !strings.Contains(errOut, "howl's spill directory does not hold it") {
		t.Errorf("howl call of a forged spill pointer: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func serveHostileForOutput(mode string) {
	if mode == brokenPromptsArg {
		mcptest.ServeBrokenPrompts(os.Stdin, os.Stdout)
		return
	}
	if mode == deepSchemaArg {
		s := server.NewMCPServer("deep", "1.0", server.WithToolCapabilities(false))
		deep := `{"type":"object","properties":{"x":` + strings.Repeat(`{"items":`, 3000) + `{"type":"string"}` + strings.Repeat("}", 3000) + `}}`
		s.AddTool(mcpgo.NewToolWithRawSchema("deep", "nested", json.RawMessage(deep)), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("ok"), nil
		})
		_ = server.ServeStdio(s)
		return
	}
	if mode == hostileInitArg {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
				continue
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32000, "message": "init " + attack}})
			fmt.Fprintf(os.Stdout, "%s\n", b)
		}
		return
	}
	fmt.Fprintln(os.Stderr, "stderr "+attack)
	s := server.NewMCPServer("hostile"+attack, "1.0"+attack, server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	s.AddTool(mcpgo.NewTool("boom", mcpgo.WithDescription("tool "+attack)), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError("tool error " + attack), nil
	})
	s.AddTool(mcpgo.NewTool("fail", mcpgo.WithDescription("fails "+attack)), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errors.New("rpc error " + attack)
	})
	s.AddTool(mcpgo.NewTool("ok", mcpgo.WithDescription("text "+attack)), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("result " + attack), nil
	})
	s.AddResource(mcpgo.NewResource("h://text", "text"+attack, mcpgo.WithMIMEType("text/plain")), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: "h://text", MIMEType: "text/plain", Text: "read " + attack}}, nil
	})
	s.AddResource(mcpgo.NewResource("h://fail", "fail"+attack), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		return nil, errors.New("read error " + attack)
	})
	s.AddPrompt(mcpgo.NewPrompt("p", mcpgo.WithPromptDescription("prompt "+attack)), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		return mcpgo.NewGetPromptResult("d"+attack, []mcpgo.PromptMessage{mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("prompt text "+attack))}), nil
	})
	s.AddPrompt(mcpgo.NewPrompt("pfail"), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		return nil, errors.New("prompt error " + attack)
	})
	_ = server.ServeStdio(s)
}

// terminalUnsafe returns the first byte sequence in out a terminal could
// act on, or "".
func terminalUnsafe(out string) string {
	for i := 0; i < len(out); {
		c := out[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return fmt.Sprintf("%q at %d", out[max(0, i-20):min(len(out), i+20)], i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return fmt.Sprintf("%q at %d", out[max(0, i-20):min(len(out), i+20)], i)
		}
		i += size
	}
	return ""
}

func TestNoVerbPrintsAServersEscapeSequencesOnAnyPath(t *testing.T) {
	home := isolate(t)
	isolateModel(t)
	exe, _ := os.Executable()
	evilName := "evil" + attack
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"h":      map[string]any{"command": exe, "args": []string{hostileServerArg}},
		"init":   map[string]any{"command": exe, "args": []string{hostileInitArg}, "protocol": "legacy"},
		evilName: map[string]any{"command": "/nonexistent/" + attack},
	}})
	cfgPath := filepath.Join(home, "hostile.json")
	os.WriteFile(cfgPath, cfg, 0o600)
	model := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp_invoke_h", Arguments: `{"tool":"boom","arguments":{}}`}}},
		llmtest.Turn{Text: "answer " + attack},
	))
	defer model.Close()

	// A stored session whose text and errors carry the attack.
	st, err := store.Open(context.Background(), filepath.Join(home, "data", "howl.db"))
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := st.Create(context.Background(), "title "+attack, "m"+attack, []string{evilName}, []llm.Message{
		{Role: llm.RoleUser, Text: "question " + attack},
		{Role: llm.RoleAssistant, Text: "model " + attack, ToolCalls: []llm.ToolCall{{ID: "x", Name: "mcp_invoke_h", Arguments: `{"a":"` + attack + `"}`}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "x", Content: "error " + attack, IsError: true}}},
	})
	st.Close()

	c := []string{"--config", cfgPath}
	runs := [][]string{
		{"servers"}, {"ls"}, {"tools"}, {"search", "h", "tool"}, {"describe", "h", "boom"},
		{"call", "h", "ok"}, {"call", "h", "boom"}, {"call", "h", "fail"}, {"call", "h", "nope"},
		{"read", "h", "h://text"}, {"read", "h", "h://fail"},
		{"prompt", "h", "p"}, {"prompt", "h", "pfail"},
		{"ls", "--server", "init"}, {"call", "init", "x"}, {"call", evilName, "x"}, {"call", "nosuch" + attack, "x"},
		{"ask", "--model", "openai-compat/m", "--base-url", model.URL, "--allow", "h:boom", "go"},
		{"lint"}, {"lint", "h"}, {"load", "h", "ok", "--n", "3"}, {"load", "h", "fail", "--n", "2"},
		{"sessions", "list"}, {"sessions", "search", "question"}, {"sessions", "export", sess.ID}, {"sessions", "export", "no" + attack},
		{},
	}
	for _, r := range runs {
		for _, asJSON := range []bool{false, true} {
			args := append(append([]string(nil), c...), r...)
			if asJSON {
				if len(r) == 0 || r[0] == "sessions" && len(r) > 1 && r[1] == "export" {
					continue // no --json form
				}
				args = append(args, "--json")
			}
			out, errOut, code := howl(t, args...)
			if bad := terminalUnsafe(out); bad != "" {
				t.Errorf("howl %q (exit %d) printed on stdout %s", r, code, bad)
			}
			if bad := terminalUnsafe(errOut); bad != "" {
				t.Errorf("howl %q (exit %d) printed on stderr %s", r, code, bad)
			}
			if asJSON && strings.TrimSpace(out) != "" && !json.Valid([]byte(strings.SplitN(strings.TrimSpace(out), "\n", 2)[0])) && !json.Valid([]byte(strings.TrimSpace(out))) {
				t.Errorf("howl %q --json printed what is not JSON: %.200q", r, out)
			}
		}
	}
	// An export to a file is as clean as one to the terminal.
	exported := filepath.Join(home, "export.md")
	if _, errOut, code := howl(t, "sessions", "export", sess.ID, "-o", exported); code != 0 {
		t.Fatalf("export -o: exit %d %s", code, errOut)
	}
	if data, _ := os.ReadFile(exported); terminalUnsafe(string(data)) != "" || !strings.Contains(string(data), "question AB") {
		t.Errorf("the exported file carries %s", terminalUnsafe(string(data)))
	}
	// The attack's visible text still shows: only the sequences are gone.
	out, _, _ := howl(t, append(c, "call", "h", "ok")...)
	if !strings.Contains(out, "result AB") || !strings.Contains(out, "JK") {
		t.Errorf("sanitizing must keep the text: %q", out)
	}
	out, _, _ = howl(t, append(c, "call", "h", "ok", "--json")...)
	if !strings.Contains(out, `\u001b]52`) || !strings.Contains(out, `\u009b2J`) || !strings.Contains(out, `\u202e`) {
		t.Errorf("--json must keep every character, escaped: %q", out)
	}
}
