package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// cmdRoots lists the roots offered to servers that ask (roots/list), or
// adds or removes one; a change is announced to every ready server
// (notifications/roots/list_changed), and servers such as
// server-filesystem then serve the new directories.
func (m *Model) cmdRoots(words []string) tea.Cmd {
	rt := m.com.RT
	if len(words) == 0 {
		return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg { return rootsTable(rt.Roots()) })
	}
	if len(words) != 2 || (words[0] != "add" && words[0] != "remove") {
		m.chat.Error("usage: " + chat.Usage(".roots") + " (a directory path; ~ is your home)")
		return nil
	}
	op, typed, ctx, mu := words[0], words[1], m.com.Ctx, &m.rootsMu
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		mu.Lock()
		defer mu.Unlock()
		dir := expandHome(typed) // reads the environment: here, not in Update
		if rt.Roots() == nil {
			return commandDoneMsg{err: ".roots: this run offers no roots to servers (the config says \"roots\": null?): write \"roots\": [] or a list of directories in the config to offer some"}
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return commandDoneMsg{err: render.Sanitize(fmt.Sprintf(".roots %s %s: %v", op, dir, err))}
		}
		cur := rt.Roots()
		switch op {
		case "add":
			st, err := os.Stat(abs)
			if err != nil || !st.IsDir() {
				return commandDoneMsg{err: render.Sanitize(fmt.Sprintf(".roots add: %s is not a directory howl can see: give an existing directory", abs))}
			}
			if slices.Contains(cur, abs) {
				return commandDoneMsg{notice: render.Sanitize(abs + " is already a root")}
			}
			cur = append(slices.Clone(cur), abs)
		case "remove":
			i := slices.Index(cur, abs)
			if i < 0 {
				return commandDoneMsg{err: render.Sanitize(fmt.Sprintf(".roots remove: %s is not a root; .roots lists them", abs))}
			}
			cur = slices.Delete(slices.Clone(cur), i, i+1)
		}
		if err := rt.SetRoots(ctx, cur); err != nil {
			return commandDoneMsg{err: render.Sanitize(".roots: the roots changed, but " + err.Error())}
		}
		msg := rootsTable(rt.Roots())
		msg.notice = "roots changed: the servers that ask for roots were told (notifications/roots/list_changed)"
		return msg
	})
}

// rootsTable is the roots as a chat table.
func rootsTable(roots []string) commandDoneMsg {
	if roots == nil {
		return commandDoneMsg{notice: "no roots are offered to servers in this run"}
	}
	if len(roots) == 0 {
		return commandDoneMsg{notice: "no roots are offered (the list is empty): .roots add DIR offers one"}
	}
	lines := []string{"ROOTS OFFERED TO SERVERS"}
	for _, r := range roots {
		lines = append(lines, render.SanitizeLine(r))
	}
	return commandDoneMsg{table: lines}
}

// expandHome turns a leading ~ into the home directory.
func expandHome(p string) string {
	if p == "~" || len(p) > 1 && p[:2] == "~/" {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}
