package apphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// Server is what an app reaches through the bridge: the tools and
// resources of the server that offered it (an *mcp.Runtime).
type Server interface {
	// AppCallTool calls a tool the server lists for apps (mcp.AppCallable).
	AppCallTool(ctx context.Context, server, tool string, args map[string]any) (json.RawMessage, error)
	ReadResourceRaw(ctx context.Context, server, uri string) ([]json.RawMessage, error)
}

// Spec is one app to open: whose it is, its interface, the tool call that
// opened it, and the person's rules for what it may do.
type Spec struct {
	// Server is the MCP server's name in howl's config; Backend reaches it.
	Server  string
	Backend Server
	// Tool is the tool whose interface this is (its name, description and
	// schema go to the app as hostContext.toolInfo); zero for a resource
	// opened on its own.
	Tool mcp.CatalogItem
	View mcp.AppView
	// Input and Result are the opening call's arguments and raw
	// CallToolResult, delivered once the app has initialized.
	Input  map[string]any
	Result json.RawMessage
	// Theme is "dark" or "light".
	Theme string
	// Decide says whether the app may call a tool of its server (an
	// error refuses it, with the error's text). Nil refuses every call.
	Decide func(ctx context.Context, tool string, args map[string]any) (decision string, err error)
	// OpenLink opens a URL the app asks for, after mcp.CheckBrowserURL
	// accepted it. Nil: mcp.OpenBrowser ($BROWSER, else the system opener).
	OpenLink func(ctx context.Context, url string) error
	// Message receives a ui/message (the text of its text blocks). Nil
	// refuses them.
	Message func(ctx context.Context, text string) error
	// ModelContext receives a ui/update-model-context: the app's state as
	// text for the model's next turn (its text blocks, then its
	// structuredContent as JSON), "" when the app clears it. Each update
	// replaces the app's last. Nil: there is no model (howl app), and the
	// update is acknowledged and dropped, saying so in the event.
	ModelContext func(ctx context.Context, text string) error
	// Event is told of every bridge request and what became of it. Nil
	// is fine. It is called from the host's goroutines.
	Event func(Event)
}

// Event is one thing an app did through the bridge.
type Event struct {
	// Method is the bridge method ("tools/call", "ui/message", ...).
	Method string `json:"method"`
	// Detail names the tool, URL or size involved, and the decision.
	Detail string `json:"detail,omitempty"`
	// Err is why it was refused or failed; empty when it went through.
	Err string `json:"error,omitempty"`
}

// App is one opened app: its page lives at URL until Close.
type App struct {
	host  *Host
	token string
	url   string
	spec  Spec
	csp   string

	ctx    context.Context // relayed calls run under it; ended by Close
	cancel context.CancelFunc

	closing   chan struct{} // closed when Close starts: the page tears the app down
	tornDown  chan struct{} // closed when the page says the app is gone
	done      chan struct{} // closed when the app is closed or asked to be
	closeOnce sync.Once
	doneOnce  sync.Once
	tornOnce  sync.Once

	mu        sync.Mutex
	inFlight  int
	pageSeen  bool
	width     int
	height    int
	initCount int
}

// Open registers an app and returns it; its page is at app.URL(). A CSP
// howl cannot express safely (an origin with spaces, quotes or ';') is
// refused here, before anything is served.
func (h *Host) Open(spec Spec) (*App, error) {
	csp, err := viewCSP(spec.View.CSP)
	if err != nil {
		return nil, fmt.Errorf("app %s: %w", spec.View.URI, err)
	}
	token, err := newToken()
	if err != nil {
		return nil, fmt.Errorf("app %s: no random token: %w", spec.View.URI, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &App{
		host: h, token: token, url: "http://" + h.hostport + "/app/" + token + "/", spec: spec, csp: csp,
		ctx: ctx, cancel: cancel,
		closing: make(chan struct{}), tornDown: make(chan struct{}), done: make(chan struct{}),
	}
	h.mu.Lock()
	h.apps[tokenKey(token)] = a
	h.mu.Unlock()
	return a, nil
}

// URL is the app's host page, token included: whoever has it can use the
// app, so it is shown only to the person.
func (a *App) URL() string { return a.url }

// Done is closed when the app has been closed, or has asked to be
// (ui/notifications/request-teardown).
func (a *App) Done() <-chan struct{} { return a.done }

// Size is the app's last reported size in CSS pixels (0 when unknown).
func (a *App) Size() (width, height int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.width, a.height
}

// Close tears the app down: a page that is open sends the app
// ui/resource-teardown and removes it (waited for at most TeardownWait);
// then its token stops working and its relayed calls are cancelled.
func (a *App) Close() {
	a.closeOnce.Do(func() {
		close(a.closing)
		a.mu.Lock()
		seen := a.pageSeen
		a.mu.Unlock()
		if seen {
			t := time.NewTimer(TeardownWait)
			select {
			case <-a.tornDown:
			case <-t.C:
			}
			t.Stop()
		}
		a.host.remove(a)
		a.cancel()
		a.finish()
	})
}

func (a *App) finish() { a.doneOnce.Do(func() { close(a.done) }) }

func (a *App) event(method, detail string, err error) {
	if a.spec.Event == nil {
		return
	}
	e := Event{Method: method, Detail: detail}
	if err != nil {
		e.Err = err.Error()
	}
	a.spec.Event(e)
}

func (a *App) serve(w http.ResponseWriter, r *http.Request, part string) {
	switch {
	case part == "" && r.Method == http.MethodGet:
		w.Header().Set("Content-Security-Policy", hostPageCSP)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(hostPage)
	case part == "host.js" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(hostScript)
	case part == "state" && r.Method == http.MethodGet:
		a.serveState(w)
	case part == "view" && r.Method == http.MethodGet:
		w.Header().Set("Content-Security-Policy", a.csp)
		if _, policy := viewPermissions(a.spec.View.Permissions); policy != "" {
			w.Header().Set("Permissions-Policy", policy)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(a.spec.View.HTML)
	case part == "events" && r.Method == http.MethodGet:
		a.serveEvents(w, r)
	case part == "rpc" && r.Method == http.MethodPost:
		a.serveRPC(w, r)
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

// serveState is what the host page needs to answer ui/initialize and to
// deliver the opening call: computed here, so the page holds no policy.
func (a *App) serveState(w http.ResponseWriter) {
	theme := a.spec.Theme
	if theme != "dark" {
		theme = "light"
	}
	hostContext := map[string]any{
		"theme": theme, "displayMode": "inline", "availableDisplayModes": []string{"inline"}, "platform": "web",
	}
	if a.spec.Tool.Name != "" {
		tool := map[string]any{"name": a.spec.Tool.Name, "inputSchema": json.RawMessage(`{"type":"object"}`)}
		if a.spec.Tool.Description != "" {
			tool["description"] = a.spec.Tool.Description
		}
		if len(a.spec.Tool.Schema) > 0 {
			tool["inputSchema"] = a.spec.Tool.Schema
		}
		hostContext["toolInfo"] = map[string]any{"tool": tool}
	}
	caps := map[string]any{
		"openLinks": struct{}{}, "serverTools": struct{}{}, "serverResources": struct{}{}, "logging": struct{}{},
		"sandbox": map[string]any{"csp": a.spec.View.CSP, "permissions": a.spec.View.Permissions},
	}
	if a.spec.Message != nil {
		caps["message"] = map[string]any{"text": struct{}{}}
	}
	if a.spec.ModelContext != nil {
		caps["updateModelContext"] = map[string]any{"text": struct{}{}, "structuredContent": struct{}{}}
	}
	allow, _ := viewPermissions(a.spec.View.Permissions)
	input := a.spec.Input
	if input == nil {
		input = map[string]any{}
	}
	state := map[string]any{
		"title": "howl · " + a.spec.Server + " · " + a.spec.View.URI,
		"initialize": map[string]any{
			"protocolVersion":  ProtocolVersion,
			"hostInfo":         map[string]any{"name": "howl", "version": "1"},
			"hostCapabilities": caps,
			"hostContext":      hostContext,
		},
		"toolInput":     input,
		"allow":         allow,
		"prefersBorder": a.spec.View.PrefersBorder,
	}
	if len(a.spec.Result) > 0 {
		state["toolResult"] = a.spec.Result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(state)
}

// serveEvents is the page's line back from howl: it stays open while the
// app lives and carries one "teardown" event when howl closes it.
func (a *App) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	a.mu.Lock()
	a.pageSeen = true
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": howl\n\n")
	fl.Flush()
	select {
	case <-a.closing:
		_, _ = io.WriteString(w, "event: teardown\ndata: {}\n\n")
		fl.Flush()
	case <-r.Context().Done():
	}
}

// rpcMessage is one JSON-RPC message from the app, relayed by the page.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// rpcError is a JSON-RPC error; code -32000 is a refusal by howl.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

const (
	codeRefused        = -32000
	codeInvalidParams  = -32602
	codeMethodNotFound = -32601
)

func (a *App) serveRPC(w http.ResponseWriter, r *http.Request) {
	// The page is the only caller: same origin, JSON. A form posted from
	// elsewhere carries another Origin (or a simple content type).
	if r.Header.Get("Origin") != "http://"+a.host.hostport || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "refused: only howl's host page may speak for the app", http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > MaxRequestBytes {
		http.Error(w, fmt.Sprintf("refused: a bridge message is over MaxRequestBytes = %d", MaxRequestBytes), http.StatusRequestEntityTooLarge)
		return
	}
	var m rpcMessage
	if err := json.Unmarshal(body, &m); err != nil || m.Method == "" {
		http.Error(w, "refused: not a JSON-RPC request or notification", http.StatusBadRequest)
		return
	}
	var result any
	var rerr *rpcError
	if a.enter() {
		result, rerr = a.handle(r.Context(), m)
		a.leave()
	} else {
		rerr = &rpcError{Code: codeRefused, Message: fmt.Sprintf("refused: this app already has %d bridge requests waiting on howl (MaxInFlight = %d): wait for their answers", MaxInFlight, MaxInFlight)}
		a.event(m.Method, "", errors.New(rerr.Message))
	}
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		reply["error"] = rerr
	} else {
		reply["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// enter counts one bridge request in, unless MaxInFlight are already.
func (a *App) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight >= MaxInFlight {
		return false
	}
	a.inFlight++
	return true
}

func (a *App) leave() {
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
}

// handle answers one bridge message. The page answers ui/initialize
// itself (from /state) and reports it, and the notifications, here.
func (a *App) handle(ctx context.Context, m rpcMessage) (any, *rpcError) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(a.ctx, cancel)
	defer stop()
	switch m.Method {
	case "tools/call":
		return a.callTool(ctx, m.Params)
	case "resources/read":
		return a.readResource(ctx, m.Params)
	case "ui/open-link":
		return a.openLink(ctx, m.Params)
	case "ui/message":
		return a.message(ctx, m.Params)
	case "ui/notifications/size-changed":
		var p struct{ Width, Height float64 }
		_ = json.Unmarshal(m.Params, &p)
		a.mu.Lock()
		a.width, a.height = clampPixels(p.Width), clampPixels(p.Height)
		a.mu.Unlock()
		a.event(m.Method, fmt.Sprintf("%dx%d", clampPixels(p.Width), clampPixels(p.Height)), nil)
		return nil, nil
	case "ui/initialize", "ui/notifications/initialized":
		a.mu.Lock()
		a.initCount++
		a.mu.Unlock()
		a.event(m.Method, a.spec.View.URI, nil)
		return nil, nil
	case "ui/notifications/request-teardown":
		a.event(m.Method, "the app asked to close", nil)
		a.finish()
		return nil, nil
	case "howl/torn-down":
		a.tornOnce.Do(func() { close(a.tornDown) })
		return nil, nil
	case "notifications/message":
		var p struct {
			Level string          `json:"level"`
			Data  json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(m.Params, &p)
		a.event(m.Method, p.Level+" "+render.Ellipsize(string(p.Data), 200), nil)
		return nil, nil
	case "ui/update-model-context":
		return a.modelContext(ctx, m.Params)
	case "ui/request-display-mode":
		return map[string]any{"mode": "inline"}, nil
	}
	if len(m.ID) == 0 {
		return nil, nil // an unknown notification is dropped, as JSON-RPC allows
	}
	err := &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("howl's MCP Apps host does not offer %q", render.Ellipsize(m.Method, 80))}
	a.event(m.Method, "", errors.New(err.Message))
	return nil, err
}

func (a *App) callTool(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "tools/call needs {\"name\": TOOL, \"arguments\": {...}}"}
	}
	detail := p.Name
	if a.spec.Decide == nil {
		err := fmt.Errorf("howl lets this app call no tools of %s", a.spec.Server)
		a.event("tools/call", detail, err)
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	decision, err := a.spec.Decide(ctx, p.Name, p.Arguments)
	if decision != "" {
		detail += ": " + decision
	}
	if err != nil {
		a.event("tools/call", detail, err)
		return nil, &rpcError{Code: codeRefused, Message: "not run: " + err.Error()}
	}
	raw, err := a.spec.Backend.AppCallTool(ctx, a.spec.Server, p.Name, p.Arguments)
	if err == nil && len(raw) > MaxRelayBytes {
		err = fmt.Errorf("the result of %s is %d bytes, over howl's MaxRelayBytes = %d for apps", p.Name, len(raw), MaxRelayBytes)
	}
	a.event("tools/call", detail, err)
	if err != nil {
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	return raw, nil
}

func (a *App) readResource(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "resources/read needs {\"uri\": URI}"}
	}
	contents, err := a.spec.Backend.ReadResourceRaw(ctx, a.spec.Server, p.URI)
	out := map[string]any{"contents": contents}
	if err == nil {
		if b, _ := json.Marshal(out); len(b) > MaxRelayBytes {
			err = fmt.Errorf("%s is %d bytes, over howl's MaxRelayBytes = %d for apps", p.URI, len(b), MaxRelayBytes)
		}
	}
	a.event("resources/read", p.URI, err)
	if err != nil {
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	return out, nil
}

func (a *App) openLink(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.URL == "" {
		return nil, &rpcError{Code: codeInvalidParams, Message: "ui/open-link needs {\"url\": URL}"}
	}
	err := mcp.CheckBrowserURL(p.URL)
	if err == nil {
		open := a.spec.OpenLink
		if open == nil {
			open = mcp.OpenBrowser
		}
		err = open(ctx, p.URL)
	}
	a.event("ui/open-link", render.Ellipsize(p.URL, 200), err)
	if err != nil {
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	return struct{}{}, nil
}

func (a *App) message(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "ui/message needs {\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": ...}]}"}
	}
	var text bytes.Buffer
	for _, c := range p.Content {
		if c.Type == "text" {
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(c.Text)
		}
	}
	var err error
	switch {
	case p.Role != "user":
		err = fmt.Errorf("ui/message: role is %q; an app speaks only as the user", render.Ellipsize(p.Role, 40))
	case text.Len() == 0:
		err = errors.New("ui/message: no text block: howl takes text messages only")
	case text.Len() > MaxMessageBytes:
		err = fmt.Errorf("ui/message: %d bytes of text, over howl's MaxMessageBytes = %d", text.Len(), MaxMessageBytes)
	case a.spec.Message == nil:
		err = errors.New("ui/message: this howl has no chat to add it to")
	default:
		err = a.spec.Message(ctx, text.String())
	}
	a.event("ui/message", render.Ellipsize(text.String(), 200), err)
	if err != nil {
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	return struct{}{}, nil
}

// modelContext is ui/update-model-context: the app's text blocks, then
// its structuredContent as compact JSON, without terminal controls,
// within MaxModelContextBytes, handed to Spec.ModelContext to replace the
// app's last. Other blocks (images, audio) are named, not kept.
func (a *App) modelContext(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "ui/update-model-context needs {\"content\": [{\"type\": \"text\", \"text\": ...}], \"structuredContent\": {...}} (either, or neither to clear)"}
	}
	var parts []string
	for _, c := range p.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, fmt.Sprintf("[a %s block, not kept: howl gives the model an app's text and structured content only]", render.Ellipsize(c.Type, 40)))
		}
	}
	if st := bytes.TrimSpace(p.Structured); len(st) > 0 && !bytes.Equal(st, []byte("null")) {
		// Compact, never indented: indenting grows with the square of the
		// nesting (9,000 nested arrays, 18 KB, indent to 162 MB), and
		// compact JSON is never longer than what the app sent.
		var b bytes.Buffer
		if err := json.Compact(&b, st); err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: "ui/update-model-context: structuredContent is not JSON: " + err.Error()}
		}
		parts = append(parts, "structured content: "+b.String())
	}
	text := render.Sanitize(strings.Join(parts, "\n\n"))
	var err error
	detail := fmt.Sprintf("%d bytes for the model's next turn", len(text))
	switch {
	case len(text) > MaxModelContextBytes:
		err = fmt.Errorf("ui/update-model-context: %d bytes, over howl's MaxModelContextBytes = %d: send a summary of the app's state", len(text), MaxModelContextBytes)
	case a.spec.ModelContext == nil:
		detail = "acknowledged and dropped: there is no model here (howl app)"
	default:
		if text == "" {
			detail = "cleared"
		}
		err = a.spec.ModelContext(ctx, text)
	}
	a.event("ui/update-model-context", detail, err)
	if err != nil {
		return nil, &rpcError{Code: codeRefused, Message: err.Error()}
	}
	return struct{}{}, nil
}

// clampPixels keeps a reported size sane (0..100000).
func clampPixels(f float64) int {
	switch {
	case !(f > 0):
		return 0
	case f > 100000:
		return 100000
	}
	return int(f)
}
