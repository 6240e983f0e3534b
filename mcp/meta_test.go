package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/howl-mcp/howl/mcp/demo"
	"github.com/howl-mcp/howl/render"
)

func names(ds []FunctionDecl) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	sort.Strings(out)
	return out
}

func TestMetaFunctionGatingMatrix(t *testing.T) {
	noPeer := fixture("no-peer-info")
	noPeer.Era = EraLegacy
	cases := []struct {
		sc   ServerConfig
		want []string
	}{
		{fixture("tools-only"), []string{"describe", "invoke", "search"}},
		{fixture("tools-resources"), []string{"describe", "invoke", "read", "search"}},
		{fixture("all-three"), []string{"describe", "invoke", "prompt", "read", "search"}},
		{fixture("resources-only"), []string{"describe", "read", "search"}},
		{noPeer, []string{"describe", "invoke", "search"}},
	}
	var servers []ServerConfig
	for _, c := range cases {
		servers = append(servers, c.sc)
	}
	rt := startRuntime(t, servers...)
	for _, c := range cases {
		st, _ := rt.ServerStatus(c.sc.Name)
		if st.State != StateReady {
			t.Fatalf("%s: %s %s", c.sc.Name, st.State, st.Reason)
		}
		var want []string
		for _, w := range c.want {
			want = append(want, "mcp_"+w+"_"+FunctionSuffix(c.sc.Name))
		}
		if got := names(DeclarationsFor(*st.Features)); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: declared %v, want %v", c.sc.Name, got, want)
		}
	}
	if st, _ := rt.ServerStatus("no-peer-info"); st.Features.PeerInfoKnown {
		t.Error("no-peer-info fixture: peer info counted as known")
	}
	// Fail-open is real: the unknown peer's tool still runs.
	out, err := rt.CallMeta(context.Background(), "mcp_invoke_no-peer-info", json.RawMessage(`{"tool":"echo","arguments":{"message":"still here"}}`))
	if err != nil || !strings.Contains(string(out), "still here") {
		t.Errorf("invoke on unknown peer: %s, %v", out, err)
	}
	all := DeclarationsOf(FunctionsPerServer, rt.ServerFeatures())
	if len(all) != 3+4+5+3+3 {
		t.Errorf("runtime declared %d functions, want 18", len(all))
	}
	for _, d := range append(all, rt.Declarations()...) {
		if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(d.Name) || !json.Valid(d.Parameters) || !IsMetaFunction(d.Name) {
			t.Errorf("bad declaration %q", d.Name)
		}
	}
}

// TestSharedSetGatesEachFunctionsServerEnum: with five servers auto
// declares the shared set, and each function's server enum lists exactly
// the servers whose capabilities pass its gate: a server without
// resources is not in mcp_read's enum, and calling it there is refused.
func TestSharedSetGatesEachFunctionsServerEnum(t *testing.T) {
	noPeer := fixture("no-peer-info")
	noPeer.Era = EraLegacy
	rt := startRuntime(t, fixture("tools-only"), fixture("tools-resources"), fixture("all-three"), fixture("resources-only"), noPeer)
	want := map[string][]string{
		"mcp_search":   {"all-three", "no-peer-info", "resources-only", "tools-only", "tools-resources"},
		"mcp_describe": {"all-three", "no-peer-info", "resources-only", "tools-only", "tools-resources"},
		"mcp_invoke":   {"all-three", "no-peer-info", "tools-only", "tools-resources"},
		"mcp_read":     {"all-three", "resources-only", "tools-resources"},
		"mcp_prompt":   {"all-three"},
	}
	decls := rt.Declarations()
	if len(decls) != len(want) || !IsShared(decls) {
		t.Fatalf("auto with 5 servers declared %v, want the shared set", names(decls))
	}
	for _, d := range decls {
		var p struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(d.Parameters, &p); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		got := p.Properties["server"].Enum
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want[d.Name], ",") {
			t.Errorf("%s: server enum %v, want %v", d.Name, got, want[d.Name])
		}
		if optional := !slices.Contains(p.Required, "server"); optional != (d.Name == "mcp_search") {
			t.Errorf("%s: server required = %v", d.Name, !optional)
		}
	}
	_, err := rt.CallMeta(context.Background(), "mcp_read", json.RawMessage(`{"server":"tools-only","uri":"x://y"}`))
	if err == nil || !strings.Contains(err.Error(), "not available") || !strings.Contains(err.Error(), `mcp_invoke, mcp_search (with server "tools-only")`) {
		t.Errorf("read on a server without resources: %v", err)
	}
	_, err = rt.CallMeta(context.Background(), "mcp_read", json.RawMessage(`{"uri":"x://y"}`))
	if err == nil || !strings.Contains(err.Error(), "server is required") || !strings.Contains(err.Error(), `"resources-only"`) || strings.Contains(err.Error(), `"tools-only"`) {
		t.Errorf("read without a server: %v", err)
	}
	_, err = rt.CallMeta(context.Background(), "mcp_invoke", json.RawMessage(`{"server":"tools-onl","tool":"echo"}`))
	if err == nil || !strings.Contains(err.Error(), `no server "tools-onl"`) {
		t.Errorf("unknown server: %v", err)
	}
	// The hidden servers leave the enums and the calls.
	hid := WithoutServers(decls, []string{"all-three"})
	if len(hid) != 4 || strings.Contains(string(hid[0].Parameters), "all-three") {
		t.Errorf("without all-three: %v %s", names(hid), hid[0].Parameters)
	}
	_, err = rt.CallMeta(WithHiddenServers(context.Background(), []string{"all-three"}), "mcp_prompt", json.RawMessage(`{"server":"all-three","prompt":"p"}`))
	if err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("hidden server reached: %v", err)
	}
	out, err := rt.CallMeta(WithHiddenServers(context.Background(), []string{"all-three"}), "mcp_search", json.RawMessage(`{"query":""}`))
	var all SearchAllResult
	if err != nil || json.Unmarshal(out, &all) != nil || strings.Join(all.Servers, ",") != "no-peer-info,resources-only,tools-only,tools-resources" {
		t.Errorf("search of every server but the hidden one: %v %.300s", err, out)
	}
}

func TestDispatchRefusesUndeclaredNamesAndTeaches(t *testing.T) {
	rt := startRuntime(t, fixture("tools-only"))
	ctx := context.Background()
	cases := map[string][]string{
		"mcp_bogus_x":           {"unknown function", "mcp_search_tools-only"},
		"mcp_read_tools-only":   {"not available", "mcp_invoke_tools-only", "mcp_search_tools-only"},
		"mcp_prompt_tools-only": {"not available"},
		"mcp_search_nosuch":     {"no server", "mcp_describe_tools-only"},
		"mcp_invoke_":           {"unknown function"},
	}
	for name, want := range cases {
		_, err := rt.CallMeta(ctx, name, json.RawMessage(`{}`))
		var ce *CallError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want a CallError", name, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
	}
	_, err := rt.CallMeta(ctx, "mcp_search_tools-only", json.RawMessage(`{"query":"x","colour":"red"}`))
	if err == nil || !strings.Contains(err.Error(), `unknown argument "colour"`) || !strings.Contains(err.Error(), "query (required)") {
		t.Errorf("unknown argument: %v", err)
	}
	if !IsMetaFunction("mcp_read_x") || IsMetaFunction("mcp_read_") || IsMetaFunction("read_x") {
		t.Error("IsMetaFunction is wrong")
	}
	// A server whose name contains a prefix dispatches by prefix, not by replace.
	if got := MetaFunctionNames("mcp_invoke_srv"); got[2] != "mcp_invoke_mcp_invoke_srv" {
		t.Errorf("names = %v", got)
	}
}

// shapedRuntime calls the meta-functions in one shape: a test written
// with the demo's own names (mcp_read_demo) runs unchanged against the
// shared set (mcp_read with "server":"demo").
type shapedRuntime struct {
	*Runtime
	shape FunctionShape
}

func (r shapedRuntime) CallMeta(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	if r.shape == FunctionsShared {
		if m, suffix, ok := matchMeta(name); ok && suffix != "" {
			name = m.name()
			trimmed := strings.TrimSpace(string(args))
			sep := ","
			if strings.TrimSpace(trimmed[1:]) == "}" {
				sep = ""
			}
			args = json.RawMessage(`{"server":` + strconv.Quote(suffix) + sep + trimmed[1:])
		}
	}
	return r.Runtime.CallMeta(ctx, name, args)
}

// eachShape runs a meta-function test in both shapes: both must pass the
// same tests.
func eachShape(t *testing.T, f func(t *testing.T, shape FunctionShape)) {
	for _, shape := range []FunctionShape{FunctionsPerServer, FunctionsShared} {
		t.Run(string(shape), func(t *testing.T) { f(t, shape) })
	}
}

func demoRuntime(t *testing.T, shape ...FunctionShape) (shapedRuntime, string) {
	t.Helper()
	spill := t.TempDir()
	sh := FunctionsPerServer
	if len(shape) > 0 {
		sh = shape[0]
	}
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{CacheDir: t.TempDir(), Spill: render.NewSpillStore(spill), Functions: sh})
	t.Cleanup(func() { rt.Close() })
	_ = rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	if st, _ := rt.ServerStatus("demo"); st.State != StateReady {
		t.Fatalf("demo: %s %s", st.State, st.Reason)
	}
	if got := rt.Declarations(); IsShared(got) != (sh == FunctionsShared) {
		t.Fatalf("%s runtime declared %v", sh, names(got))
	}
	return shapedRuntime{rt, sh}, spill
}

func call(t *testing.T, rt interface {
	CallMeta(context.Context, string, json.RawMessage) ([]byte, error)
}, name, args string) []byte {
	t.Helper()
	out, err := rt.CallMeta(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return out
}

func TestReadWithPatternPagesTheFilteredStreamToTheEnd(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		line := regexp.MustCompile(`^(\d+[:-]|--$)`)
		offset, total, pages := 0, -1, 0
		var all strings.Builder
		for {
			out := call(t, rt, "mcp_read_demo", `{"uri":"`+demo.LogURI+`","pattern":"ERROR","max_bytes":204800,"offset":`+itoa(offset)+`}`)
			if i := strings.Index(string(out), `"text":`); i < 0 || i > 600 {
				t.Fatalf("text is not after the coverage fields: %.300s", out)
			}
			var r render.TextResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatal(err)
			}
			if total < 0 {
				total = r.TotalBytes
				if r.MatchedLines == nil || *r.MatchedLines == 0 {
					t.Fatal("no ERROR line matched")
				}
			}
			if !strings.Contains(r.Note, "matched") {
				t.Errorf("note %q does not say how many lines matched", r.Note)
			}
			all.WriteString(r.Text)
			pages++
			if r.NextOffset == nil {
				break
			}
			offset = *r.NextOffset
			if pages > 50 {
				t.Fatal("paging never ended")
			}
		}
		if all.Len() != total || pages < 2 {
			t.Errorf("pages covered %d of %d bytes in %d pages", all.Len(), total, pages)
		}
		// Pages split anywhere; reassembled, every line is grep-style.
		for _, l := range strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n") {
			if !line.MatchString(l) {
				t.Fatalf("line %q is not grep-style", l)
			}
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestReadSpillsThePNGAndTheFileIsIt(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, spill := demoRuntime(t, shape)
		out := call(t, rt, "mcp_read_demo", `{"uri":"`+demo.PNGURI+`"}`)
		var s render.SpillResult
		if err := json.Unmarshal(out, &s); err != nil || !s.Spilled {
			t.Fatalf("not a spill: %s", out)
		}
		if !strings.HasPrefix(s.Path, spill) || !strings.HasSuffix(s.Path, ".png") {
			t.Errorf("path %s not a .png in the spill dir", s.Path)
		}
		data, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != s.SHA256 || string(data[1:4]) != "PNG" {
			t.Errorf("the file is not the PNG the metadata names")
		}
		if strings.Contains(string(out), "iVBOR") {
			t.Error("base64 leaked into the result")
		}
	})
}

func TestReadOfMislabeledTextBlobIsInline(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		out := call(t, rt, "mcp_read_demo", `{"uri":"`+demo.MislabeledURI+`"}`)
		var r render.TextResult
		if err := json.Unmarshal(out, &r); err != nil || !r.Sniffed || r.MimeType != "application/octet-stream" || r.Text == "" {
			t.Fatalf("mislabeled text not inlined: %s", out)
		}
	})
}

func TestReadExpandsTemplatesAndRefusesBadArguments(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		out := call(t, rt, "mcp_read_demo", `{"uri":"`+demo.UserTemplate+`","arguments":{"id":"ada"}}`)
		if !strings.Contains(string(out), `"uri":"demo://users/ada"`) {
			t.Errorf("template read: %.200s", out)
		}
		bad := map[string]string{
			`{"uri":"demo://users/{+id}","arguments":{"id":"a"}}`: "Level 1",
			`{"uri":"demo://users/{id}"}`:                         `"id" has no value`,
			`{"uri":"demo://users/{id}","arguments":{"idd":"a"}}`: `"idd"`,
			`{"uri":"demo://users/{id}","arguments":{"id":[1]}}`:  "string, number or boolean",
			`{"uri":"` + demo.LogURI + `","pattern":"("}`:         "not a valid regex",
			`{"uri":"` + demo.LogURI + `","offset":-1}`:           "offset",
			`{"uri":"` + demo.LogURI + `","max_bytes":"lots"}`:    "max_bytes",
			`{"pattern":"x"}`: "uri is required",
		}
		for args, want := range bad {
			_, err := rt.CallMeta(context.Background(), "mcp_read_demo", json.RawMessage(args))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", args, err, want)
			}
		}
	})
}

func TestPromptIsOneLabelledUserBlockAndNeverExecuted(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		var pr PromptResult
		out := call(t, rt, "mcp_prompt_demo", `{"prompt":"`+demo.ConversationPrompt+`"}`)
		if err := json.Unmarshal(out, &pr); err != nil {
			t.Fatal(err)
		}
		if pr.Role != "user" || pr.Messages < 2 || !strings.Contains(pr.Text, "[user]\n") || !strings.Contains(pr.Text, "[assistant]\n") {
			t.Errorf("conversation not flattened with both labels: %+v", pr)
		}
		if !strings.HasPrefix(string(out), `{"note":`) {
			t.Errorf("note does not lead: %.80s", out)
		}
		for _, name := range []string{demo.BangPrompt, demo.DotPrompt, demo.GreetingPrompt} {
			out := call(t, rt, "mcp_prompt_demo", `{"prompt":"`+name+`"}`)
			_ = json.Unmarshal(out, &pr)
			if !strings.HasPrefix(pr.Text, "[user]\n") {
				t.Errorf("%s: a single message still gets its label: %q", name, pr.Text)
			}
		}
		out = call(t, rt, "mcp_prompt_demo", `{"prompt":"`+demo.BangPrompt+`"}`)
		_ = json.Unmarshal(out, &pr)
		if !strings.HasPrefix(pr.Text, "[user]\n!") {
			t.Errorf("bang prompt text = %q, want it returned as text", pr.Text)
		}
		out = call(t, rt, "mcp_prompt_demo", `{"prompt":"`+demo.WithResourcePrompt+`"}`)
		_ = json.Unmarshal(out, &pr)
		if !strings.Contains(pr.Text, "[embedded resource ") {
			t.Errorf("embedded resource not included: %.300s", pr.Text)
		}
	})
}

func TestPromptArgumentErrorsTeach(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		_, err := rt.CallMeta(context.Background(), "mcp_prompt_demo", json.RawMessage(`{"prompt":"`+demo.CodeReviewPrompt+`"}`))
		if err == nil || !strings.Contains(err.Error(), "missing required arguments") || !strings.Contains(err.Error(), `"language" (`) {
			t.Errorf("missing required: %v", err)
		}
		_, err = rt.CallMeta(context.Background(), "mcp_prompt_demo", json.RawMessage(`{"prompt":"`+demo.CodeReviewPrompt+`","arguments":{"language":3}}`))
		if err == nil || !strings.Contains(err.Error(), "strings only") || !strings.Contains(err.Error(), `"language" is a number`) {
			t.Errorf("non-string: %v", err)
		}
		_, err = rt.CallMeta(context.Background(), "mcp_prompt_demo", json.RawMessage(`{"prompt":"greetin"}`))
		if err == nil || !strings.Contains(err.Error(), `did you mean "greeting"`) {
			t.Errorf("typo: %v", err)
		}
	})
}

func TestInvokeBoundsResults(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		out := call(t, rt, "mcp_invoke_demo", `{"tool":"`+demo.ImageTool+`"}`)
		if !strings.HasPrefix(string(out), `{"howl_coverage":`) || !strings.Contains(string(out), `"spilled":true`) || strings.Contains(string(out), "iVBOR") {
			t.Errorf("image not spilled: %.300s", out)
		}
		out = call(t, rt, "mcp_invoke_demo", `{"tool":"`+demo.BigTextTool+`"}`)
		if len(out) > render.MaxResponseBytes+4096 || !regexp.MustCompile(`showing bytes 0-\d+ of \d+`).Match(out) {
			t.Errorf("big text not sliced with shown-of-total: %d bytes", len(out))
		}
		out = call(t, rt, "mcp_invoke_demo", `{"tool":"`+demo.AddTool+`","arguments":{"a":2,"b":3}}`)
		if !strings.Contains(string(out), `"5"`) && !strings.Contains(string(out), `"text":"5`) {
			t.Errorf("add: %s", out)
		}
		out = call(t, rt, "mcp_invoke_demo", `{"tool":"`+demo.FailTool+`","arguments":{"message":"boom"}}`)
		if !strings.Contains(string(out), `"isError":true`) || !strings.Contains(string(out), "boom") {
			t.Errorf("error result: %s", out)
		}
		_, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"add","arguments":{"a":"two"}}`))
		if err == nil || !strings.Contains(err.Error(), "input schema") || !strings.Contains(err.Error(), "argument a") {
			t.Errorf("schema check: %v", err)
		}
		_, err = rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"ad"}`))
		if err == nil || !strings.Contains(err.Error(), `did you mean "add"`) {
			t.Errorf("unknown tool: %v", err)
		}
	})
}

func TestCallsRunConcurrently(t *testing.T) {
	eachShape(t, func(t *testing.T, shape FunctionShape) {
		rt, _ := demoRuntime(t, shape)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := rt.CallMeta(context.Background(), "mcp_invoke_demo", json.RawMessage(`{"tool":"echo","arguments":{"message":"hi"}}`))
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

func TestCancellingACallCancelsItAtTheServer(t *testing.T) {
	spill := t.TempDir()
	cancelled := make(chan string, 4)
	progressed := make(chan struct{}, 200)
	rt := NewRuntime(&Config{Servers: []ServerConfig{fixture("demo")}}, RuntimeOptions{CacheDir: t.TempDir(), Spill: render.NewSpillStore(spill), LogLevel: "info",
		OnEvent: func(e Event) {
			if e.Kind == EventNotification && e.Method == "notifications/progress" {
				progressed <- struct{}{}
			}
			if e.Kind == EventNotification && e.Method == "notifications/message" {
				if d, _ := e.Params["data"].(string); strings.Contains(d, "cancelled") {
					cancelled <- d
				}
			}
		}})
	defer rt.Close()
	_ = rt.Start()
	_ = rt.Wait(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := rt.CallMeta(ctx, "mcp_invoke_demo", json.RawMessage(`{"tool":"slow","arguments":{"duration_ms":20000,"steps":100}}`))
		done <- err
	}()
	select { // cancel once the server is demonstrably working on it
	case <-progressed:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress from the slow tool")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	select {
	case msg := <-cancelled:
		t.Logf("server said: %s", msg)
	case <-time.After(10 * time.Second):
		t.Error("the server never saw the cancellation")
	}
}
