package dialog

import (
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// ArgumentCheckDeadline bounds how long a tool form waits for its
// arguments to be checked against the tool's input schema. Past it the
// call goes to the server unchecked (the server checks its own
// arguments), and the person is told.
const ArgumentCheckDeadline = 2 * time.Second

// formCheckedMsg answers a tool form's argument check.
type formCheckedMsg struct {
	args map[string]any
	err  error
}

// checkCmd checks a tool form's arguments against the tool's schema in a
// command, never in Update: a server's schema can make checking slow.
func (d *FormDialog) checkCmd(args map[string]any) tea.Cmd {
	d.check = d.com.NewID()
	d.form.status = "checking the arguments against the tool's input schema…"
	item := d.item
	return common.Deliver(d.Owner(), d.check, func() tea.Msg {
		return formCheckedMsg{args: args, err: checkWithin(ArgumentCheckDeadline, item, args)}
	})
}

// checkWithin validates args for tool, giving up after deadline. The
// validation it gives up on ends by itself: mcp bounds its steps.
func checkWithin(deadline time.Duration, tool mcp.CatalogItem, args map[string]any) error {
	done := make(chan error, 1)
	go func() { done <- mcp.ValidateArguments(tool, args) }()
	t := time.NewTimer(deadline)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return &mcp.UncheckedError{Reason: fmt.Sprintf("checking the arguments of %s took longer than %s (ArgumentCheckDeadline); howl sent them unchecked: the server checks them",
			render.Ellipsize(tool.Name, 80), deadline)}
	}
}

// handleChecked calls the tool once its arguments passed (or could not
// be checked), or shows why they did not. A stale answer is dropped.
func (d *FormDialog) handleChecked(id common.RequestID, msg formCheckedMsg) Action {
	if id != d.check || id == 0 {
		return None{}
	}
	d.check, d.form.status = 0, ""
	var ue *mcp.UncheckedError
	switch {
	case errors.As(msg.err, &ue):
		return CallTool{Item: d.item, Args: msg.args, Unchecked: ue.Reason}
	case msg.err != nil:
		d.form.err = render.Sanitize(msg.err.Error())
		return None{}
	}
	return CallTool{Item: d.item, Args: msg.args}
}

// dropCheck makes an awaited check stale: a key changed the form, or may
// have, since its arguments were taken.
func (d *FormDialog) dropCheck() {
	if d.check != 0 {
		d.check, d.form.status = 0, ""
	}
}
