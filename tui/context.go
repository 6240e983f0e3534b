package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/chat"
	"github.com/howl-mcp/howl/tui/common"
)

// cmdContext shows what the next model request carries: the system
// prompt, the declarations, the conversation and each tool result, with
// their bytes and tokens, largest first, against the model's window; and
// what howl's content policy kept out. The counting runs in a command.
func (m *Model) cmdContext(words []string) tea.Cmd {
	if len(words) > 0 {
		m.chat.Error("usage: " + chat.Usage(".context"))
		return nil
	}
	if m.chat.Running() {
		m.chat.Error(".context: the turn is still running: ask again when it has answered (esc cancels it)")
		return nil
	}
	rt, msgs, model := m.com.RT, m.chat.ContextMessages(), m.chat.Model()
	var hidden []string
	for s, h := range m.com.Hidden {
		if h {
			hidden = append(hidden, s)
		}
	}
	return common.Deliver(common.OwnerRoot, m.com.NewID(), func() tea.Msg {
		decls := mcp.WithoutServers(rt.Declarations(), hidden)
		name := ""
		if model != nil {
			name = model.Name()
		}
		window, from := llm.WindowOf(model)
		rep := llm.MeasureContext(llm.SystemPrompt(rt.Status(), decls), decls, msgs, llm.TokenizerFor(name), window, from)
		return commandDoneMsg{table: contextTable(rep, name)}
	})
}

// contextTable renders a context report for the transcript.
func contextTable(rep llm.ContextReport, model string) []string {
	if model == "" {
		model = "the model (none configured)"
	}
	head := fmt.Sprintf("next request to %s: %d tokens, %d bytes", render.SanitizeLine(model), rep.TotalTokens, rep.TotalBytes)
	if rep.Window > 0 {
		head += fmt.Sprintf(" · %.0f%% of a %d-token window (%s)", 100*float64(rep.TotalTokens)/float64(rep.Window), rep.Window, rep.WindowFrom)
	} else {
		head += ` · window unknown: set "context_window" in the config`
	}
	rows := [][]string{{"tokens", "bytes", "part", "unbounded"}}
	bounded := 0
	for _, p := range rep.Parts {
		unb := ""
		if p.UnboundedBytes > p.Bytes {
			bounded++
			unb = fmt.Sprintf("%d bytes (saved %d)", p.UnboundedBytes, p.UnboundedBytes-p.Bytes)
		}
		rows = append(rows, []string{fmt.Sprint(p.Tokens), fmt.Sprint(p.Bytes), render.SanitizeLine(p.What), unb})
	}
	out := append([]string{head}, formatTable(rows)...)
	out = append(out, "tokens by "+rep.Tokenizer)
	if bounded > 0 {
		out = append(out, fmt.Sprintf("howl's content policy kept %d bytes out of this conversation (bounded or spilled results: %d)", rep.SavedBytes, bounded))
	}
	if rep.Warning != "" {
		out = append(out, "warning: "+rep.Warning)
	}
	return out
}

// contextStatus is the status bar's context segment: the tokens the last
// request carried (as the provider counted them) plus its answer, of the
// model's window when known, with a warning near the window (.context
// says where they went).
func (m *Model) contextStatus() string {
	last := m.chat.LastRequest()
	used := last.InputTokens + last.OutputTokens
	if used == 0 {
		return ""
	}
	window, _ := llm.WindowOf(m.chat.Model())
	if window == 0 {
		return " · ctx " + tokens(used)
	}
	s := fmt.Sprintf(" · ctx %s/%s", tokens(used), tokens(int64(window)))
	if float64(used) >= llm.ContextWarnAt*float64(window) {
		s += fmt.Sprintf(" %.0f%%: near the window, .context", 100*float64(used)/float64(window))
	}
	return s
}
