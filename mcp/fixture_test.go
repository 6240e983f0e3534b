package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/mcp/mcptest"
)

// fixtureEnv names the fixture server a re-executed test binary should be.
// Fixture servers run as real child processes over real stdio: the test
// binary starts itself with this variable set, and TestMain serves.
const fixtureEnv = "HOWL_TEST_FIXTURE"

func TestMain(m *testing.M) {
	if name := os.Getenv(fixtureEnv); name != "" {
		os.Exit(serveFixture(name))
	}
	if record := os.Getenv(browserRecordEnv); record != "" {
		os.Exit(recordBrowser(record))
	}
	goleak.VerifyTestMain(m)
}

// fixture returns the config entry that starts the named fixture server.
func fixture(name string) ServerConfig {
	return ServerConfig{
		Name: name, Transport: TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: map[string]string{fixtureEnv: name},
		StartTimeout: 20 * time.Second,
	}
}

func serveFixture(name string) int {
	ctx := context.Background()
	switch name {
	case "demo":
		if err := demo.ServeStdio(ctx, demo.New(demo.Options{}), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "demo-scale", "demo-scale-100k":
		scale := 2000
		if name == "demo-scale-100k" {
			scale = 100_000
		}
		if err := demo.ServeStdio(ctx, demo.New(demo.Options{Scale: scale}), os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "schemas":
		return serveSchemas()
	case "standin":
		if err := demo.ServeStdio(ctx, newStandInServer(), os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "degraded":
		// Tools list fine (one malformed tool among them); resources are
		// advertised but resources/list fails.
		s := server.NewMCPServer("degraded", "1.0", server.WithResourceCapabilities(false, false), server.WithToolCapabilities(false))
		s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo a message"), mcpgo.WithString("message", mcpgo.Required())),
			func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText(r.GetString("message", "")), nil
			})
		s.AddResource(mcpgo.NewResource("file:///a", "a"), func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return nil, nil
		})
		return proxyStdio(s, func(method string, id, _ json.RawMessage) []byte {
			if method == "resources/list" {
				return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"resource index is corrupt"}}`, id))
			}
			return nil
		}, func(resp map[string]json.RawMessage) {
			var res map[string]json.RawMessage
			if json.Unmarshal(resp["result"], &res) != nil {
				return
			}
			if tools, ok := res["tools"]; ok {
				var list []json.RawMessage
				_ = json.Unmarshal(tools, &list)
				list = append(list, json.RawMessage(`{"name": 42, "description": "a tool whose name is a number"}`), json.RawMessage(`{"description": "a tool without a name"}`))
				res["tools"], _ = json.Marshal(list)
				resp["result"], _ = json.Marshal(res)
			}
		})
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "starting fixture")
		fmt.Fprintln(os.Stderr, "fatal: cannot open database /nonexistent/db.sqlite: no such file or directory")
		return 3
	case "dies-on-tools-list":
		return mcptest.ServeDiesOnToolsList(os.Stdin, os.Stdout, os.Stderr, mcptest.DiesAtOnce)
	case "dies-mid-answer":
		return mcptest.ServeDiesOnToolsList(os.Stdin, os.Stdout, os.Stderr, mcptest.DiesMidAnswer)
	case "hangs-up-on-tools-list":
		return mcptest.ServeDiesOnToolsList(os.Stdin, os.Stdout, os.Stderr, mcptest.HangsUp)
	case "dies-on-tools-call":
		return mcptest.ServeDiesOn(os.Stdin, os.Stdout, os.Stderr, "tools/call", mcptest.DiesAtOnce)
	case "dies-on-resources-read":
		return mcptest.ServeDiesOn(os.Stdin, os.Stdout, os.Stderr, "resources/read", mcptest.DiesAtOnce)
	case "dies-on-tools-call-holding-stdout":
		// As dies-on-tools-call, but a child it started (a sleeper, in its
		// process group) holds its stdout: howl sees the process end
		// before it sees the connection close.
		holder := exec.Command(os.Args[0], "-test.run=^$")
		holder.Env = append(os.Environ(), fixtureEnv+"=sleeper")
		holder.Stdout = os.Stdout
		if err := holder.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "starting the stdout holder:", err)
			return 1
		}
		return mcptest.ServeDiesOn(os.Stdin, os.Stdout, os.Stderr, "tools/call", mcptest.DiesAtOnce)
	case "deaf-on-eof":
		// Serves, then ignores stdin EOF and SIGTERM: only SIGKILL ends it.
		// On Windows howl's SIGTERM is CTRL_BREAK, which Go sees as
		// os.Interrupt and, unless it is caught (ignoring it is not
		// enough there), ends the process: a channel no one reads
		// catches it.
		signal.Ignore(syscall.SIGTERM)
		signal.Notify(make(chan os.Signal, 1), os.Interrupt)
		s := server.NewMCPServer("deaf", "1.0", server.WithToolCapabilities(false))
		_ = demo.ServeStdio(ctx, s, os.Stdin, os.Stdout)
		for { // not select{}: with no goroutine left, that is a deadlock (exit 2)
			time.Sleep(time.Hour)
		}
	case "spawner":
		return serveSpawner()
	case "lock-holder":
		return holdLock()
	case "edit-over-size-limit":
		return editOverSizeLimit()
	case "deaf-to-eof":
		// Serves, then ignores stdin EOF; SIGTERM (CTRL_BREAK) ends it.
		s := server.NewMCPServer("deaf", "1.0", server.WithToolCapabilities(false))
		_ = demo.ServeStdio(ctx, s, os.Stdin, os.Stdout)
		time.Sleep(time.Hour) // not select{}: with no goroutine left, that is a deadlock (exit 2)
		return 0
	case "app-meta":
		if err := demo.ServeStdio(ctx, appMetaServer(), os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "tools-only":
		return serveGated(true, false, false)
	case "tools-resources":
		return serveGated(true, true, false)
	case "resources-only":
		return serveGated(false, true, false)
	case "all-three":
		return serveGated(true, true, true)
	case "no-peer-info":
		// A handshake that says nothing: no server info, no capabilities.
		// The tools still work: invoke must stay available (fail-open).
		s := gatedServer(true, false, false)
		return proxyStdio(s, func(string, json.RawMessage, json.RawMessage) []byte { return nil }, func(resp map[string]json.RawMessage) {
			var res map[string]json.RawMessage
			if json.Unmarshal(resp["result"], &res) == nil && res["protocolVersion"] != nil {
				resp["result"] = json.RawMessage(`{"protocolVersion":` + string(res["protocolVersion"]) + `,"capabilities":{},"serverInfo":{"name":"","version":""}}`)
			}
		})
	case "hostile":
		return serveHostile()
	case "odd-listing":
		return serveOddListing()
	case "long-lines":
		return serveLongLines()
	case "demo-big":
		if err := demo.ServeStdio(ctx, demo.New(demo.Options{Big: true}), os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "token-writer":
		return writeTokensFixture()
	case "endless-tools", "endless-big-tools":
		return serveEndlessTools(name == "endless-big-tools")
	case "question-flood":
		return serveQuestionFlood()
	case "gate":
		return serveGate()
	case "long-completions":
		return serveLongCompletions()
	case "sleeper":
		// Reads nothing and writes nothing until it is killed.
		time.Sleep(time.Hour)
		return 0
	case "asker":
		// A tool that elicits and waits for the answer.
		s := server.NewMCPServer("asker", "1.0", server.WithToolCapabilities(false))
		s.AddTool(mcpgo.NewTool("ask"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcpgo.ElicitationRequest{Params: mcpgo.ElicitationParams{
				Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}})
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(string(res.Action)), nil
		})
		if err := server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "tasks-optional":
		// A tool that runs either way; as a task it takes brew_ms.
		s := server.NewMCPServer("tasks", "1.0", server.WithToolCapabilities(false), server.WithTaskCapabilities(true, true, true))
		s.AddTool(mcpgo.NewTool("brew", mcpgo.WithTaskSupport(mcpgo.TaskSupportOptional), mcpgo.WithNumber("brew_ms")),
			func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				// Not the request's context: mcp-go's stdio server ends it
				// once the task is created, while the task runs on.
				time.Sleep(time.Duration(req.GetFloat("brew_ms", 0)) * time.Millisecond)
				return mcpgo.NewToolResultText("brewed"), nil
			})
		if err := server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout); err != nil {
			return 1
		}
		return 0
	case "big-instructions":
		return serveBigInstructions()
	case "tasks-fast-poll":
		return serveFastPollTask()
	case "slow-lister":
		return serveSlowLister()
	case "stalled-listing":
		return serveStalledListing()
	case "stalled-lister":
		return listStalled()
	case "paging-long-cursors":
		// longCursorPages empty pages, each with a new cursor of 1 MiB,
		// then one item and no cursor.
		s := server.NewMCPServer("cursors", "1.0", server.WithResourceCapabilities(false, false))
		return proxyStdio(s, func(method string, id, params json.RawMessage) []byte {
			if method != "resources/list" {
				return nil
			}
			var p struct{ Cursor string }
			_ = json.Unmarshal(params, &p)
			page, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(p.Cursor, "-", 2)[0], "p"))
			if page >= longCursorPages {
				return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[{"uri":"end://x","name":"x"}]}}`, id))
			}
			return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[],"nextCursor":"p%d-%s"}}`, id, page+1, strings.Repeat("x", 1<<20)))
		}, nil)
	case "paging-loop":
		// A cursor that repeats forever.
		s := server.NewMCPServer("loop", "1.0", server.WithResourceCapabilities(false, false))
		return proxyStdio(s, func(method string, id, _ json.RawMessage) []byte {
			if method == "resources/list" {
				return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resources":[{"uri":"loop://x","name":"x"}],"nextCursor":"again"}}`, id))
			}
			return nil
		}, nil)
	}
	fmt.Fprintf(os.Stderr, "unknown fixture %q\n", name)
	return 2
}

// gatedServer is a small server advertising exactly the capabilities asked.
func gatedServer(tools, resources, prompts bool) *server.MCPServer {
	var opts []server.ServerOption
	if tools {
		opts = append(opts, server.WithToolCapabilities(false))
	}
	if resources {
		opts = append(opts, server.WithResourceCapabilities(false, false))
	}
	if prompts {
		opts = append(opts, server.WithPromptCapabilities(false))
	}
	s := server.NewMCPServer("gated", "1.0", opts...)
	if tools {
		s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo a message"), mcpgo.WithString("message", mcpgo.Required())),
			func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText(r.GetString("message", "")), nil
			})
	}
	if resources {
		s.AddResource(mcpgo.NewResource("file:///hello.txt", "hello", mcpgo.WithMIMEType("text/plain")),
			func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
				return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: "file:///hello.txt", MIMEType: "text/plain", Text: "hello"}}, nil
			})
	}
	if prompts {
		s.AddPrompt(mcpgo.NewPrompt("hi", mcpgo.WithPromptDescription("Say hi")), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("hi", []mcpgo.PromptMessage{mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("hi"))}), nil
		})
	}
	return s
}

func serveGated(tools, resources, prompts bool) int {
	if err := demo.ServeStdio(context.Background(), gatedServer(tools, resources, prompts), os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// proxyStdio serves s over stdio, letting intercept answer some requests
// itself (by method) and rewrite rewrite the server's responses. howl's
// answers to the fixture's own requests reach intercept too, with an empty
// method and the whole message as params.
func proxyStdio(s *server.MCPServer, intercept func(method string, id, params json.RawMessage) []byte, rewrite func(map[string]json.RawMessage)) int {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var mu sync.Mutex
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.Write(append(b, '\n'))
	}
	writeLine = write
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if rewrite != nil {
				var msg map[string]json.RawMessage
				if json.Unmarshal(line, &msg) == nil && msg["result"] != nil {
					rewrite(msg)
					line, _ = json.Marshal(msg)
				}
			}
			write(line)
		}
	}()
	go func() {
		defer inW.Close()
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var msg struct {
				Method string          `json:"method"`
				ID     json.RawMessage `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.ID != nil {
				if msg.Method == "" {
					msg.Params = sc.Bytes()
				}
				if reply := intercept(msg.Method, msg.ID, msg.Params); reply != nil {
					if len(reply) > 0 { // empty: swallow the request unanswered
						write(reply)
					}
					continue
				}
			}
			inW.Write(append(append([]byte(nil), sc.Bytes()...), '\n'))
		}
	}()
	if err := demo.ServeStdio(context.Background(), s, inR, outW); err != nil {
		return 1
	}
	return 0
}

// startRuntime starts the given fixtures in a fresh runtime and waits.
func startRuntime(t *testing.T, servers ...ServerConfig) *Runtime {
	t.Helper()
	return startRuntimeWith(t, RuntimeOptions{}, servers...)
}

// startRuntimeWith is startRuntime with opts (its CacheDir a temporary
// directory).
func startRuntimeWith(t *testing.T, opts RuntimeOptions, servers ...ServerConfig) *Runtime {
	t.Helper()
	opts.CacheDir = t.TempDir()
	rt := NewRuntime(&Config{Servers: servers}, opts)
	t.Cleanup(func() { rt.Close() })
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	return rt
}
