package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/howl-mcp/howl/tui/catalog"
	"github.com/howl-mcp/howl/tui/common"
	"github.com/howl-mcp/howl/tui/dialog"
)

// Drawing the screen: the tab bar, the body from the layout, the log,
// the help line, the status bar and the top dialog over them.

// View draws the screen. It reads the model and never changes it beyond
// render caches.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	l := m.layout
	if l.TooSmall {
		return m.tooSmallView()
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.renderTabs())
	if !l.Banner.Empty() {
		lines = append(lines, m.renderBanner(l.Banner.W))
	}
	var body []string
	switch {
	case m.chatMode:
		body = m.chatBody()
	case l.List.Empty():
		body = m.rightPane()
	default:
		body = common.JoinColumns(m.catalog.Render(m.frame), m.rightPane())
	}
	lines = append(lines, body...)
	if m.logs.IsOpen() {
		lines = append(lines, m.logs.Render(m.frame)...)
	}
	switch {
	case l.Help.Empty():
	case m.status.MessageMoved(l.Status.W, m.catalog.Servers()):
		// The servers' states fill the status bar: the message takes the
		// help line while it shows.
		lines = append(lines, m.status.MessageLine(l.Help.W))
	default:
		keys := m.com.Keys.ShortHelp(m.helpState())
		if h, ok := m.dialogs.Top().(dialog.KeyHelper); ok {
			keys = h.ShortHelp() // what the dialog offers now
		}
		lines = append(lines, common.Fit(" "+m.help.ShortHelpView(keys), l.Help.W))
	}
	lines = append(lines, m.status.Render(l.Status.W, m.catalog.Servers(), m.frame))
	if d := m.dialogs.Top(); d != nil {
		// Between the tabs and the help line: a tall dialog must not hide
		// the keys that answer it.
		avail := m.height - 2
		if !l.Help.Empty() {
			avail--
		}
		frame := d.Render(m.width, avail)
		x := max((m.width-common.WidthOf(frame[0]))/2, 0)
		y := max(min((m.height-len(frame))/2, 1+avail-len(frame)), 1)
		lines = common.Overlay(lines, frame, x, y)
	}
	if m.com.Images == common.ImageITerm2 {
		lines = common.ITerm2Seal(lines)
	}
	// A line is written whole when anything on it changed: fewer escapes
	// make each one cheaper (see BenchmarkCatalogCursorMoveRepaint).
	for i, l := range lines {
		lines[i] = common.CompactSGR(l)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) helpState() common.HelpState {
	top := ""
	if d := m.dialogs.Top(); d != nil {
		top = d.ID()
	}
	return common.HelpState{
		Dialog:        top,
		TextInput:     m.catalog.TextInputFocused() || m.viewer.TextInputFocused(),
		ViewerFocused: m.focus == focusRight && m.viewer.Open(),
		Chat:          m.chatMode,
		Blocks:        m.chat.Focused(),
		Running:       m.chat.Running(),
		Popup:         m.comp.IsOpen(),
		Logs:          m.logs.IsOpen() && m.logs.Focused(),
		DetailFocused: m.focus == focusRight && !m.viewer.Open(),
		Filtered:      m.catalog.Query() != "",
		Mention:       m.focus == focusList && mentionable(m.catalog.Selected()),
		Tools:         m.catalog.Tab() == 0, // catalog.TabTitles[0], "Tools"
	}
}

func (m *Model) rightPane() []string {
	if m.viewer.Open() {
		return m.viewer.Render(m.frame)
	}
	return m.detail.Render(m.frame)
}

// brand starts the tab bar.
const brand = " howl "

// tabCell is one tab as the bar draws it.
type tabCell struct {
	title  string
	active bool
}

// tabBar lays the tab bar out for the terminal's width: the full titles
// with a blank either side of each, then without those blanks, then with
// short kind names ("Res 126", "Tmpl 2"), then with only the active tab's
// count, the first that fits. Chat, the last tab, stays on the bar down
// to the narrowest terminal howl draws on whatever the counts say
// ("Resources 126+?" beside a failed server used to push it off).
func (m *Model) tabBar() (cells []tabCell, pad int) {
	for _, l := range []struct {
		short, bare bool // short names; no count but the active tab's
		pad         int
	}{{false, false, 1}, {false, false, 0}, {true, false, 0}, {true, true, 0}} {
		cells = cells[:0]
		for i := range catalog.TabTitles {
			active := i == m.catalog.Tab() && !m.chatMode
			title := m.catalog.TabTitle(i)
			switch {
			case l.bare && !active:
				title = catalog.ShortTabTitles[i]
			case l.short:
				title = m.catalog.ShortTabTitle(i)
			}
			cells = append(cells, tabCell{title, active})
		}
		cells = append(cells, tabCell{chatTabTitle, m.chatMode})
		if spans := tabColumns(cells, l.pad); spans[len(spans)-1][1] <= m.width {
			return cells, l.pad
		}
	}
	return cells, 0 // the shortest layout: Fit cuts what still does not fit
}

// tabColumns are the columns each cell takes: an active cell is
// "[title]", an inactive one the title with pad blanks either side; one
// blank between cells and one more before Chat.
func tabColumns(cells []tabCell, pad int) [][2]int {
	x := common.WidthOf(brand) + 1
	spans := make([][2]int, len(cells))
	for i, c := range cells {
		if i == len(cells)-1 {
			x++ // the chat tab, one blank further
		}
		w := common.WidthOf(c.title) + 2*pad
		if c.active {
			w = common.WidthOf(c.title) + 2
		}
		spans[i] = [2]int{x, x + w}
		x += w + 1
	}
	return spans
}

// tabSpans are the columns of each tab in the tab bar: one pure function
// serves drawing and mouse hits.
func (m *Model) tabSpans() [][2]int {
	return tabColumns(m.tabBar())
}

// tabAt is the tab at column x, or -1.
func tabAt(spans [][2]int, x int) int {
	for i, s := range spans {
		if x >= s[0] && x < s[1] {
			return i
		}
	}
	return -1
}

// renderTabs draws the tab bar: the active tab in brackets (visible
// without colour too).
func (m *Model) renderTabs() string {
	st := m.com.Styles
	cells, pad := m.tabBar()
	blank := strings.Repeat(" ", pad)
	var b strings.Builder
	b.WriteString(st.Tabs.Brand.Render(brand))
	b.WriteString(" ")
	for i, c := range cells {
		if i == len(cells)-1 {
			b.WriteString(" ")
		}
		if c.active {
			b.WriteString(st.Tabs.Active.Render("[" + c.title + "]"))
		} else {
			b.WriteString(st.Tabs.Inactive.Render(blank + c.title + blank))
		}
		if i < len(cells)-1 {
			b.WriteString(" ")
		}
	}
	return common.Fit(b.String(), m.width)
}

// renderBanner is the line under the tab bar while no config exists: this
// is the built-in demo, where howl looked and the file to create, in the
// longest wording that fits (a path is never cut).
func (m *Model) renderBanner(w int) string {
	paths := make([]string, len(m.noConfig))
	for i, p := range m.noConfig {
		if !filepath.IsAbs(p) {
			p = "." + string(filepath.Separator) + p // the working directory's
		}
		paths[i] = m.com.DisplayPath(p)
	}
	create, looked := paths[0], strings.Join(paths, " or ")
	for _, s := range []string{
		"No config file, so this is howl's built-in demo: howl looked for " + looked + "; create " + create + " with your servers (README: Configuration).",
		"Built-in demo: no config at " + looked + "; create " + create + " with your servers.",
		"Built-in demo (no " + looked + "): create the first.",
		"Demo: no " + looked + "; create the first.",
		"Built-in demo: no config; create " + create + ".",
	} {
		if common.WidthOf(s) <= w-2 {
			return m.com.Styles.Accent.Render(common.Fit(" "+s, w))
		}
	}
	return m.com.Styles.Accent.Render(common.Fit(" Built-in demo: create "+create, w))
}

// tooSmallView asks for a bigger terminal instead of drawing a broken layout.
func (m *Model) tooSmallView() string {
	st := m.com.Styles
	msg := []string{
		st.Strong.Render("Make me bigger"),
		"",
		fmt.Sprintf("howl needs at least %d×%d;", MinWidth, MinHeight),
		fmt.Sprintf("this terminal is %d×%d.", m.width, m.height),
		"",
		st.Muted.Render("q quits"),
	}
	lines := make([]string, m.height)
	top := max((m.height-len(msg))/2, 0)
	for i := range lines {
		s := ""
		if j := i - top; j >= 0 && j < len(msg) {
			s = msg[j]
			pad := max((m.width-ansi.StringWidthWc(s))/2, 0)
			s = strings.Repeat(" ", pad) + s
		}
		lines[i] = common.Fit(s, m.width)
	}
	return strings.Join(lines, "\n")
}
