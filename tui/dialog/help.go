package dialog

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/tui/common"
)

// HelpDialog shows the keys that apply where it was opened, in titled
// groups laid side by side as the width allows and below each other when
// it does not; descriptions wrap, and a screen too short for it scrolls.
type HelpDialog struct {
	dialogBase
	com    *common.Common
	groups []common.HelpGroup
	scroll dialogScroll
}

func (d *HelpDialog) ID() string { return "help" }

// HandleKey closes on esc, ? or q, and scrolls with the moving keys.
func (d *HelpDialog) HandleKey(km tea.KeyMsg) Action {
	k := d.com.Keys
	if key.Matches(km, k.Cancel, k.Help, k.Quit) {
		return Close{}
	}
	if key.Matches(km, k.Top) {
		d.scroll.top = 0
	} else if key.Matches(km, k.Bottom) {
		d.scroll.top = 1 << 30 // Window clamps
	} else {
		d.scroll.HandleKey(km, k)
	}
	return None{}
}

// hintText closes the help screen.
const hintText = "the keys that apply where you opened this · esc closes"

// helpGap is the room between two groups side by side.
const helpGap = 4

// Render lays the groups out at the dialog's width.
func (d *HelpDialog) Render(maxW, maxH int) []string {
	w := dialogWidth(maxW, 120)
	avail := w - 4 // the border and a margin each side
	blocks := make([][]string, len(d.groups))
	widths := make([]int, len(d.groups))
	for i, g := range d.groups {
		blocks[i] = d.renderGroup(g, avail)
		for _, l := range blocks[i] {
			widths[i] = max(widths[i], common.WidthOf(l))
		}
	}
	// Lay the blocks out in bands: as many side by side as fit.
	var body []string
	widest := common.WidthOf(hintText)
	for i := 0; i < len(blocks); {
		j, used := i, 0
		for j < len(blocks) && (j == i || used+helpGap+widths[j] <= avail) {
			if j > i {
				used += helpGap
			}
			used += widths[j]
			j++
		}
		widest = max(widest, used)
		h := 0
		for _, b := range blocks[i:j] {
			h = max(h, len(b))
		}
		for r := 0; r < h; r++ {
			var line strings.Builder
			for c := i; c < j; c++ {
				cell := ""
				if r < len(blocks[c]) {
					cell = blocks[c][r]
				}
				if c < j-1 {
					cell = common.Fit(cell, widths[c]) + strings.Repeat(" ", helpGap)
				}
				line.WriteString(cell)
			}
			body = append(body, " "+line.String())
		}
		if j < len(blocks) {
			body = append(body, "")
		}
		i = j
	}
	shown := d.scroll.Window(d.com, body, maxH-2-2)
	content := append([]string{""}, shown...)
	content = append(content, " "+d.com.Styles.Dialog.Hint.Render(hintText))
	return frameDialog(d.com, "Keys", content, min(w, widest+4), maxH, -1)
}

// renderGroup draws one group: its title, then each key beside its
// description, wrapped to fit avail cells.
func (d *HelpDialog) renderGroup(g common.HelpGroup, avail int) []string {
	st := d.com.Styles
	keyW := 0
	for _, b := range g.Keys {
		keyW = max(keyW, common.WidthOf(b.Help().Key))
	}
	descW := max(avail-keyW-1, 10)
	out := []string{st.Strong.Render(g.Title)}
	for _, b := range g.Keys {
		for i, l := range common.WrapText(b.Help().Desc, descW) {
			k := ""
			if i == 0 {
				k = b.Help().Key
			}
			out = append(out, st.Help.FullKey.Render(common.Fit(k, keyW))+" "+st.Help.FullDesc.Render(l))
		}
	}
	return out
}
