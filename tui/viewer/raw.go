package viewer

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// rawTitle starts the raw view's title.
const rawTitle = "server JSON · "

// rawResult is the exact JSON-RPC result a server sent for a document's
// read, call or prompt, at most mcp.MaxRawResultBytes of it.
type rawResult struct {
	data  []byte
	total int
	cut   bool
}

// capturedRaw is what a capture kept (nil when no result came from the
// server: a page served from howl's copy of an earlier read).
func capturedRaw(c *mcp.RawCapture) *rawResult {
	data, total, cut := c.Result()
	if data == nil {
		return nil
	}
	return &rawResult{data: data, total: total, cut: cut}
}

// note is the raw view's coverage line.
func (r *rawResult) note() string {
	if r.cut {
		return fmt.Sprintf("the JSON the server sent, its first %s of %s (MaxRawResultBytes): saving writes these bytes", render.HumanBytes(int64(len(r.data))), render.HumanBytes(int64(r.total)))
	}
	return fmt.Sprintf("the exact JSON the server sent, %s, pretty-printed here: W saves the bytes as they came", render.HumanBytes(int64(r.total)))
}

// toggleRaw (R) shows the server's JSON of the document on screen, on top
// of howl's view; R (or esc) on it goes back to howl's view.
func (v *Pane) toggleRaw() tea.Cmd {
	d := v.doc
	switch {
	case d == nil:
		return nil
	case d.rawView:
		return v.back()
	case d.raw == nil:
		return common.ReportInfo("no server JSON for this document: reads, tool calls and prompts have one (a page from howl's copy of a read does not)")
	}
	req := Request{kind: reqText, title: rawTitle + d.title, text: string(d.raw.data), mode: openPush, raw: d.raw}
	return v.Request(req, "formatting")
}

// save (W) writes the document to a file: in the raw view the server's
// bytes as they came, else the text howl shows.
func (v *Pane) save() tea.Cmd {
	d := v.doc
	switch {
	case d == nil:
		return nil
	case d.rawView:
		name := common.FileName(v.com.Now(), ".json", strings.TrimPrefix(d.title, rawTitle), "server")
		return common.SaveCmd("saved", name, d.raw.data, "server's JSON", v.com.DisplayPath)
	case d.spill != nil:
		return common.ReportInfo("this is a file already: " + render.SanitizeLine(v.com.DisplayPath(d.spill.Path)))
	case d.copyText == "":
		return common.ReportInfo("nothing to save")
	}
	ext := ".txt"
	if json.Valid([]byte(d.copyText)) {
		ext = ".json"
	}
	return common.SaveCmd("saved", common.FileName(v.com.Now(), ext, d.title), []byte(d.copyText), "document as howl shows it", v.com.DisplayPath)
}
