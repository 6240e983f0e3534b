package dialog

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// actionTrustProject answers the trust dialog on top.
type TrustProject struct {
	File mcp.ConfigFile
	// use: the person allowed it; remember: for good (t), not once (o).
	Use, Remember bool
}

func (TrustProject) isAction() {}

// trustDialog shows what a project config file would run and set, and asks
// whether to use it. It opens as howl starts, so it ignores keys for
// PermissionGrace: a key typed before it was seen never trusts anything.
type TrustDialog struct {
	dialogBase
	com  *common.Common
	file mcp.ConfigFile
	grace
	scroll dialogScroll
}

func (d *TrustDialog) ID() string { return "trust:" + d.file.Path }

// HandleKey answers on t/o/n (esc: not now) and scrolls the list.
func (d *TrustDialog) HandleKey(km tea.KeyMsg) Action {
	if d.inGrace(d.com.Now()) {
		return None{}
	}
	switch {
	case key.Matches(km, d.com.Keys.Cancel, d.com.Keys.Trust.No):
		return TrustProject{File: d.file}
	case key.Matches(km, d.com.Keys.Trust.Trust):
		return TrustProject{File: d.file, Use: true, Remember: true}
	case key.Matches(km, d.com.Keys.Trust.Once):
		return TrustProject{File: d.file, Use: true}
	default:
		d.scroll.HandleKey(km, d.com.Keys)
	}
	return None{}
}

// Render draws the file, why it is asked about, everything it would run
// and set (as written: ${VAR}s are not filled in), and the answers.
func (d *TrustDialog) Render(maxW, maxH int) []string {
	st := d.com.Styles
	w := dialogWidth(maxW, 100)
	inner := w - 2
	wrap := func(s string, indent int) []string {
		var out []string
		for _, l := range common.WrapWords(render.SanitizeLine(s), max(inner-indent-1, 10)) {
			out = append(out, " "+strings.Repeat(" ", indent)+l)
		}
		return out
	}
	head := []string{""}
	head = append(head, wrap("This project has its own MCP config, written by whoever wrote the project:", 0)...)
	head = append(head, " "+st.Strong.Render(common.Truncate(render.SanitizeLine(d.com.DisplayPath(cmp.Or(d.file.Key, d.file.Path))), inner-2)))
	if d.file.Key != "" && d.file.Key != d.file.Path { // a link: trusted where it lies
		head = append(head, wrap("a link to "+d.com.DisplayPath(d.file.Path)+", asked about here: its servers would run in this directory", 0)...)
	}
	head = append(head, wrap(fmt.Sprintf("(%s). Nothing from it runs until you say so. If you trust it, it will:", d.file.Why), 0)...)
	var body []string
	for _, l := range d.file.Summary() {
		body = append(body, wrap("• "+l, 1)...)
	}
	var tail []string
	if len(d.file.Keys) > 0 {
		tail = append(tail, wrap("Its settings apply from howl's next start; its servers start now.", 0)...)
	}
	tail = append(tail, "")
	opts := []string{"t trust it (asked again if the file changes)", "o this run only", "n/esc not now"}
	for _, l := range common.WrapWords(strings.Join(opts, " · "), max(inner-2, 10)) {
		tail = append(tail, " "+st.Dialog.Hint.Render(l))
	}
	shown := d.scroll.Window(d.com, body, min(maxH, 40)-2-len(head)-len(tail))
	content := append(append(append([]string(nil), head...), shown...), tail...)
	return frameDialog(d.com, "Trust this project's servers?", content, w, maxH, -1)
}
