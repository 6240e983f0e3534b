package mcp

import (
	"log/slog"
	"strings"
	"testing"
)

// mcp-go's transports log through the logger howl gives them: warnings
// and worse become lines of the server's log, without slog's time stamp;
// info and debug (and everything, with nowhere to send it) are dropped,
// never written to the terminal.
func TestTransportLogLinesGoToTheServersLogNotTheTerminal(t *testing.T) {
	var lines []string
	l := libLogger(func(s string) { lines = append(lines, s) })
	l.Info("listening to server forever")
	l.Error("failed to send response to server", "err", "context canceled")
	if len(lines) != 1 || !strings.Contains(lines[0], `level=ERROR msg="failed to send response to server" err="context canceled"`) || strings.Contains(lines[0], "time=") {
		t.Errorf("lines = %q; want the error alone, without a time", lines)
	}
	if h := libLogger(nil).Handler(); h.Enabled(t.Context(), slog.LevelError) {
		t.Error("with nowhere to send them, lines are still handled")
	}
}
