package chat

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// testCommon is the chat's shared kit as the tests draw it: the dark
// theme under the Ascii profile, no timers.
func testCommon() *common.Common {
	th := theme.New(theme.Options{Dark: true, Profile: termenv.Ascii})
	return &common.Common{Ctx: context.Background(), Theme: th, Styles: th.Styles, Keys: common.DefaultKeyMap(),
		Tick: func(time.Duration, tea.Msg) tea.Cmd { return nil }, Log: common.DiscardLogger(), Progress: &common.ProgressBoard{},
		Hidden: map[string]bool{}, DisplayPath: func(s string) string { return s }}
}
