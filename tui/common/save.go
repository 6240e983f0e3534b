package common

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/render"
)

// SaveCmd writes data to a new file named name under the cache
// directory's sub folder (private: 0700, the file 0600), off the update
// path, and reports where (through show, which shortens paths; nil keeps
// them) or why not.
func SaveCmd(sub, name string, data []byte, what string, show func(string) string) tea.Cmd {
	return func() tea.Msg {
		fail := func(err error) tea.Msg {
			return InfoMsg{Type: InfoError, Msg: fmt.Sprintf("could not save the %s: %v", what, err), TTL: DefaultInfoTTL}
		}
		dir, err := render.CacheDir()
		if err != nil {
			return fail(err)
		}
		dir = filepath.Join(dir, sub)
		if err := render.PrivateDir(dir); err != nil {
			return fail(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return fail(err)
		}
		if show != nil {
			path = show(path)
		}
		return InfoMsg{Type: InfoPlain, Msg: fmt.Sprintf("saved the %s to %s", what, render.SanitizeLine(path)), TTL: DefaultInfoTTL}
	}
}

// FileName builds a file name from a time and parts: only [A-Za-z0-9._-],
// each part at most 60 bytes, joined by -, with ext.
func FileName(at time.Time, ext string, parts ...string) string {
	names := []string{at.UTC().Format("20060102T150405.000000Z")}
	for _, p := range parts {
		var b strings.Builder
		for _, r := range p {
			if b.Len() >= 60 {
				break
			}
			if r < 0x80 && (r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		names = append(names, b.String())
	}
	return strings.Join(names, "-") + ext
}
