package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// callDeep calls the deep tool of server with a generous deadline and
// checks the call failed on the parse error, not on a timeout.
func callDeep(t *testing.T, rt *Runtime, server string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	_, err := rt.CallMeta(ctx, "mcp_invoke_"+server, json.RawMessage(`{"tool":"deep"}`))
	t.Logf("a call answered %d arrays deep failed after %v: %v", deepNesting, time.Since(began).Round(time.Millisecond), err)
	if err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "no progress") {
		t.Fatalf("want the call to fail on the parse error, not to wait: %v", err)
	}
	if !strings.Contains(err.Error(), "could not parse the server's answer") || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("the error must say the answer did not parse, and why: %v", err)
	}
}

func TestAnswerTooDeepToParseFailsTheCallAtOnceOverStdio(t *testing.T) {
	rt, _ := hostileRuntime(t, nil)
	callDeep(t, rt, "hostile")
	if _, err := rt.CallMeta(context.Background(), "mcp_read_hostile", json.RawMessage(`{"uri":"`+uriEscapes+`"}`)); err != nil {
		t.Errorf("the server's next answer must still arrive: %v", err)
	}
	demoStillWorks(t, rt)
}

// fixtureMessage is what an HTTP fixture reads of a message from howl to
// decide whether it answers it by hand.
type fixtureMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// handAnsweredServer serves ms as a stateless streamable HTTP server,
// except for the messages hand answers itself (it returns true); it
// returns the server's URL.
func handAnsweredServer(t testing.TB, ms *server.MCPServer, hand func(w http.ResponseWriter, r *http.Request, msg fixtureMessage) bool) string {
	t.Helper()
	h := server.NewStreamableHTTPServer(ms, server.WithStateLess(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg fixtureMessage
		_ = json.Unmarshal(body, &msg)
		if hand(w, r, msg) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deepHTTPServer is a streamable HTTP server whose deep tool answers on
// an event stream with deepAnswer, then keeps the stream open.
func deepHTTPServer(t *testing.T) string {
	t.Helper()
	ms := server.NewMCPServer("deep", "1.0", server.WithToolCapabilities(false))
	ms.AddTool(mcpgo.NewTool("deep"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("never sent"), nil
	})
	return handAnsweredServer(t, ms, func(w http.ResponseWriter, r *http.Request, msg fixtureMessage) bool {
		if msg.Method != "tools/call" || msg.Params.Name != "deep" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", deepAnswer(msg.ID))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the stream stays open: only the answer can end the call
		return true
	})
}

func TestAnswerTooDeepToParseFailsTheCallAtOnceOverHTTP(t *testing.T) {
	url := deepHTTPServer(t)
	rt := startRuntime(t, ServerConfig{Name: "deep", Transport: TransportHTTP, URL: url, Era: EraLegacy, StartTimeout: 20 * time.Second})
	if st, _ := rt.ServerStatus("deep"); st.State != StateReady {
		t.Fatalf("deep: %s %s", st.State, st.Reason)
	}
	callDeep(t, rt, "deep")
}

func TestParseFailureStandsInOnlyForAnswersThatDoNotParse(t *testing.T) {
	deep := string(deepAnswer(json.RawMessage("3")))
	for _, c := range []struct {
		name, msg string
		id        string // the id of the stand-in error; "" for none
		reason    string
	}{
		{"a valid answer", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "", ""},
		{"a valid error", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, "", ""},
		{"too deep", deep, "3", "exceeded max depth"},
		{"a NaN", `{"jsonrpc":"2.0","id":"a","result":{"x":NaN}}`, `"a"`, "invalid character 'N'"},
		{"truncated", `{"jsonrpc":"2.0","id":7,"result":{"content":[`, "7", "unexpected end of JSON input"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":7,"result":{}} x`, "7", "after top-level value"},
		{"an error that is neither an object nor a string", `{"jsonrpc":"2.0","id":8,"error":42}`, "8", "neither an object nor a string"},
		{"a notification that does not parse", `{"jsonrpc":"2.0","method":"notifications/message","params":{"x":NaN}}`, "", ""},
		{"a request that does not parse", `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":[[NaN`, "", ""},
		{"garbage", `garbage: this line is not JSON-RPC {`, "", ""},
		{"a null id", `{"jsonrpc":"2.0","id":null,"result":[NaN]}`, "", ""},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"result":[NaN]}`, "", ""},
		{"an id after what does not parse", `{"jsonrpc":"2.0","result":[NaN],"id":9}`, "", ""},
		{"empty", ``, "", ""},
	} {
		got := parseFailure([]byte(c.msg))
		if c.id == "" {
			if got != nil {
				t.Errorf("%s: want no stand-in, got %s", c.name, got)
			}
			continue
		}
		var e struct {
			ID    json.RawMessage           `json:"id"`
			Error mcpgo.JSONRPCErrorDetails `json:"error"`
		}
		if err := json.Unmarshal(got, &e); err != nil || string(e.ID) != c.id || e.Error.Code != mcpgo.PARSE_ERROR || !strings.Contains(e.Error.Message, c.reason) {
			t.Errorf("%s: want a parse error (%d) for id %s saying %q, got %s", c.name, mcpgo.PARSE_ERROR, c.id, c.reason, got)
		}
	}
}

// guardedBytes reads everything through a replyGuard with a tiny buffer
// (so lines arrive in many pieces) and one-byte reads.
func guardedBytes(t *testing.T, in []byte, sse bool) []byte {
	t.Helper()
	g := &replyGuard{src: bufio.NewReaderSize(bytes.NewReader(in), 16), lineStart: true, sse: sse}
	out, err := io.ReadAll(iotest.OneByteReader(g))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReplyGuardAddsTheStandInAfterTheLineItStandsFor(t *testing.T) {
	in := "garbage\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + string(deepAnswer(json.RawMessage("2"))) + "\r\n" + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	out := string(guardedBytes(t, []byte(in), false))
	want := "\r\n" + string(parseFailure(deepAnswer(json.RawMessage("2")))) + "\n" + `{"jsonrpc":"2.0","id":3`
	if !strings.HasPrefix(out, in[:strings.Index(in, "\r\n")]) || !strings.Contains(out, want) || strings.Replace(out, want[2:len(want)-len(`{"jsonrpc":"2.0","id":3`)], "", 1) != in {
		t.Errorf("the server's bytes must pass unchanged, with the stand-in right after the line it stands for:\n%.200q", out)
	}
}

func TestEventGuardAddsTheStandInAsAnEventAfterTheEventItStandsFor(t *testing.T) {
	deep := string(deepAnswer(json.RawMessage("2")))
	half := len(deep) / 2
	in := "event: endpoint\ndata: /messages?s=1\n\n" +
		"id: 7\nevent: message\ndata: " + deep[:half] + "\ndata:" + deep[half:] + "\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n"
	out := string(guardedBytes(t, []byte(in), true))
	// The two data lines are handed out as one, joined with a tab (see
	// replyGuard.take), and the data line's break comes before the blank
	// line.
	fail := parseFailure([]byte(deep[:half] + "\t" + deep[half:]))
	if fail == nil {
		t.Fatal("the deep event must be flagged")
	}
	at := strings.Index(in, "\r\n\r\n")
	want := in[:strings.Index(in, deep[half:])-len("\ndata:")] + "\t" + deep[half:] + "\n\r\n" +
		"event: message\ndata: " + string(fail) + "\n\n" + in[at+4:]
	if out != want {
		t.Errorf("got\n%.300q\nwant the stand-in as its own event after the deep one", out)
	}
}

func FuzzReplyGuardPassesEveryByteAndAddsOnlyStandIns(f *testing.F) {
	f.Add([]byte("garbage\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[NaN]}\n{\"id\":2}"))
	f.Add(deepAnswer(json.RawMessage(`"x"`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		// The reference: every complete line, then its stand-in if any.
		var want []byte
		rest := in
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				want = append(want, rest...)
				break
			}
			line := rest[:i+1]
			want = append(want, line...)
			if fail := parseFailure(bytes.TrimRight(line, "\r\n")); fail != nil && len(line) <= MaxCheckedLine {
				want = append(append(want, fail...), '\n')
			}
			rest = rest[i+1:]
		}
		if got := guardedBytes(t, in, false); !bytes.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

// BenchmarkReplyGuard is the guard's cost on answers just under and over
// MaxCheckedLine (checked, then passed unchecked) and on small ones.
func BenchmarkReplyGuard(b *testing.B) {
	for _, size := range []int{1 << 10, MaxCheckedLine - 1<<10, 2 * MaxCheckedLine} {
		line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x","text":"` + strings.Repeat("x", size) + "\"}]}}\n")
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := io.Copy(io.Discard, guardLines(bytes.NewReader(line))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// mcp-go joins an event's data lines with a newline, so an event of many
// empty "data:" lines grows in mcp-go while its data bytes stay none: the
// guard counts each join against MaxMessageBytes too.
func TestAnEventsEmptyDataLinesCountAgainstItsBound(t *testing.T) {
	stream := "event: message\ndata: x\n" + strings.Repeat("data:\n", 1000)
	g := guardEvents(io.NopCloser(strings.NewReader(stream)))
	if _, err := io.Copy(io.Discard, g); err != nil {
		t.Fatal(err)
	}
	if g.size != 1+1000 {
		t.Errorf("an event of one data byte and 1000 empty data lines counts %d bytes, want %d (each join is a byte mcp-go holds)", g.size, 1+1000)
	}
}

// sseEvents reads a stream as mcp-go's transports do (ReadString,
// TrimRight of "\r\n", appendSSEData) and returns each event's type and
// data, and how many data lines it read.
func sseEvents(stream []byte) (events []string, dataLines int) {
	br := bufio.NewReader(bytes.NewReader(stream))
	var event, data string
	dispatch := func() {
		if data != "" {
			if event == "" {
				event = "message"
			}
			events = append(events, event+"|"+data)
		}
		event, data = "", ""
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				dispatch()
			}
			return events, dataLines
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			dispatch()
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[len("event:"):])
		case strings.HasPrefix(line, "data:"):
			dataLines++
			value := strings.TrimPrefix(line[len("data:"):], " ")
			if data == "" {
				data = value
			} else {
				data += "\n" + value
			}
		}
	}
}

// sameMessage reports whether two events' data mean the same to mcp-go:
// the same JSON, or both not JSON.
func sameMessage(a, b string) bool {
	ta, da, _ := strings.Cut(a, "|")
	tb, db, _ := strings.Cut(b, "|")
	if ta != tb {
		return false
	}
	va, vb := json.Valid([]byte(da)), json.Valid([]byte(db))
	if !va || !vb {
		return va == vb
	}
	var ca, cb bytes.Buffer
	_ = json.Compact(&ca, []byte(da))
	_ = json.Compact(&cb, []byte(db))
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// The guard hands each run of an event's data lines to mcp-go as one line:
// the events mcp-go reads mean what the server's meant (the same JSON, or
// both invalid), and mcp-go reads one data line per run.
func FuzzEventGuardJoinsRunsOfDataLinesWithoutChangingTheirMessages(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"a\":\ndata:  [1,\r\ndata:2]}\n\ndata: {\"x\":\"a\ndata: b\"}\n\n"))
	f.Add([]byte("data:\ndata: 1\n:c\ndata: 2\nid: 3\ndata:\n\r\ndata: [\ndata: ]"))
	f.Add([]byte("event: endpoint\ndata: /m?a=1\ndata: b\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Count(in, []byte("data:")) > MaxEventDataRuns {
			return // past the bound the stream fails: another test's matter
		}
		if !bytes.HasSuffix(in, []byte("\n")) {
			// An unfinished last line that continues a run takes the run
			// with it (replyGuard.take): a stream that breaks mid-line.
			in = append(in, '\n')
		}
		want, _ := sseEvents(in)
		out := guardedBytes(t, in, true)
		got, lines := sseEvents(out)
		if len(got) != len(want) {
			t.Fatalf("%d events from the guard, %d from the server:\n%q\n%q", len(got), len(want), out, in)
		}
		for i := range got {
			if !sameMessage(got[i], want[i]) {
				t.Errorf("event %d: %q from the guard, %q from the server", i, got[i], want[i])
			}
		}
		if runs := bytes.Count(in, []byte("data:")); lines > runs {
			t.Errorf("mcp-go read %d data lines of %d", lines, runs)
		}
	})
}

// An event of many consecutive data lines reaches mcp-go as one data line.
func TestEventGuardHandsARunOfDataLinesToMcpGoAsOneLine(t *testing.T) {
	in := "event: message\ndata: [1" + strings.Repeat("\ndata: ,1", 10000) + "]\n\n"
	out := guardedBytes(t, []byte(in), true)
	got, lines := sseEvents(out)
	want, _ := sseEvents([]byte(in))
	if lines != 1 || len(got) != 1 || !sameMessage(got[0], want[0]) {
		t.Errorf("mcp-go reads %d data lines (want 1), events %.100q (want %.100q)", lines, got, want)
	}
}
