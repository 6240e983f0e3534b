package viewer

import (
	"strings"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Read is a request to read a resource, or a template with its variables.
func Read(server, uri string, args map[string]string) Request {
	return Request{kind: reqRead, server: server, uri: uri, args: args}
}

// Call is a request to call a tool with checked arguments.
func Call(server, tool string, args map[string]any) Request {
	return Request{kind: reqCall, server: server, tool: tool, toolArgs: args}
}

// CallTyped is a request to call a tool with `.call`'s key=value
// arguments, typed by the tool's schema when the call is made.
func CallTyped(server, tool string, kv map[string]string) Request {
	return Request{kind: reqCall, server: server, tool: tool, keyValues: kv}
}

// ForApp makes a tool call or a read open the MCP App uri once it
// succeeds: TakeAppLoad then says so, and the app lives as long as the
// document does.
func (r Request) ForApp(uri string) Request {
	r.appURI = uri
	return r
}

// AppLoad is a call or read that succeeded and opens an MCP App: the
// document's app id, whose the app is, the opening call (tool "" for a
// read) and its raw result (nil when it was over mcp.MaxRawResultBytes).
type AppLoad struct {
	App    common.RequestID
	Server string
	URI    string
	Tool   string
	Args   map[string]any
	Result []byte
	// Cut: the raw result was over mcp.MaxRawResultBytes, so the app gets none.
	Cut bool
}

func newAppLoad(req Request, d *document) *AppLoad {
	d.app = d.id
	a := &AppLoad{App: d.id, Server: req.server, URI: req.appURI}
	if req.kind == reqCall {
		a.Tool, a.Args = req.tool, req.toolArgs
		if d.raw != nil {
			a.Result, a.Cut = d.raw.data, d.raw.cut
			if a.Cut {
				a.Result = nil
			}
		}
	}
	return a
}

// TakeAppLoad returns the load that opens an MCP App, once.
func (v *Pane) TakeAppLoad() *AppLoad {
	a := v.appLoad
	v.appLoad = nil
	return a
}

// Apps are the MCP Apps whose documents are in the viewer (on screen or
// under it): the others are closed.
func (v *Pane) Apps() map[common.RequestID]bool {
	out := map[common.RequestID]bool{}
	for _, d := range v.docs() {
		if d.app != 0 {
			out[d.app] = true
		}
	}
	return out
}

// Prompt is a request to get a prompt with its arguments.
func Prompt(server, name string, args map[string]string) Request {
	return Request{kind: reqPrompt, server: server, prompt: name, promptArgs: args}
}

// Text is a request to show text the TUI holds (JSON is formatted).
func Text(title, text string) Request {
	return Request{kind: reqText, title: title, text: text}
}

// Label is what the attachment is called.
func (a Attachment) Label() string { return a.label }

// Kind is the attachment's MIME type, or "link" for a linked resource.
func (a Attachment) Kind() string {
	if a.spill != nil {
		return render.SanitizeLine(a.spill.MimeType)
	}
	return "link"
}

// Attachments are the files and links of the document on screen.
func (v *Pane) Attachments() []Attachment {
	if v.doc == nil {
		return nil
	}
	return v.doc.atts
}

// Title is the title of the document on screen ("" when none).
func (v *Pane) Title() string {
	if v.doc == nil {
		return ""
	}
	return v.doc.title
}

// Focused reports whether the viewer has the keys.
func (v *Pane) Focused() bool { return v.focused }

// KeyState is what the viewer's key bindings depend on.
type KeyState struct {
	Doc, Lines, Hits, NextPage, PrevPage, Paged, Filtered bool
	Hex, Attachments, Subscribable, Subscribed            bool
}

// Keys is the state the root enables the viewer's bindings from.
func (v *Pane) Keys() KeyState {
	d := v.doc
	if d == nil {
		return KeyState{}
	}
	return KeyState{
		Doc:          true,
		Lines:        len(d.lines) > 0,
		Hits:         len(v.hits) > 0,
		NextPage:     d.src != nil && d.src.next != nil,
		PrevPage:     d.src != nil && len(d.src.history) > 0,
		Paged:        d.src != nil,
		Filtered:     d.src != nil && d.src.pattern != "",
		Hex:          d.spill != nil && (d.img != nil || looksLikeImageDoc(d)),
		Attachments:  len(d.atts) > 0,
		Subscribable: subscribable(d),
		Subscribed:   v.sub(d) != nil,
	}
}

// CloseFiles closes the open documents' files at once. Call it after the
// program has ended (while it runs, files close in commands).
func (v *Pane) CloseFiles() {
	for _, d := range append(v.stack, v.doc) {
		if d != nil && d.hex != nil && d.hex.file != nil {
			_ = d.hex.file.Close()
			d.hex.file = nil
		}
	}
}

// Plain is the text of the document on screen, line by line, as search
// sees it (tests and copies read it).
func (v *Pane) Plain() string {
	if v.doc == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range v.doc.lines {
		b.WriteString(l.plain)
		b.WriteByte('\n')
	}
	return b.String()
}

var _ common.Pane = (*Pane)(nil)

// Failed reports whether the document on screen is a failed request's error.
func (v *Pane) Failed() bool { return v.doc != nil && v.doc.kind == docError }
