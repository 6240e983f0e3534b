package common

import (
	"strings"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestProgressTextDrawsABarWhenTheTotalIsKnownAndASpinnerOtherwise(t *testing.T) {
	cases := []struct {
		p    mcp.Progress
		want string
	}{
		{mcp.Progress{Progress: 3, Total: 6, Message: "step 3"}, "▕██████░░░░░░▏ 3/6 step 3"},
		{mcp.Progress{Progress: 9, Total: 6}, "▕████████████▏ 9/6"},
		{mcp.Progress{Progress: 2.5, Message: "working\x1b[31m"}, SpinnerFrames[0] + " 2.5 working"},
		{mcp.Progress{Task: "t1", Message: "working"}, SpinnerFrames[0] + " task working"},
	}
	for _, c := range cases {
		if got := ProgressText(c.p, 0); got != c.want {
			t.Errorf("progressText(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	var b ProgressBoard
	if b.Apply(mcp.Progress{Server: "c", Owner: "viewer:9", Progress: 1}) {
		t.Error("progress of a request nobody waits on was kept")
	}
	b.Begin("viewer:1")
	b.Begin("tool-call:x")
	b.Apply(mcp.Progress{Server: "a", Owner: "viewer:1", Progress: 1, Total: 2})
	b.Apply(mcp.Progress{Server: "b", Owner: "tool-call:x", Progress: 1})
	if got := ProgressStatus(&b, 0); !strings.HasPrefix(got, "b ") || !strings.HasSuffix(got, "(+1 more)") {
		t.Errorf("status shows %q, want the latest (b) and one more", got)
	}
	b.Done("tool-call:x")
	b.Done("viewer:1")
	if ProgressStatus(&b, 0) != "" {
		t.Error("finished requests still show")
	}
	if b.Apply(mcp.Progress{Server: "b", Owner: "tool-call:x", Progress: 2}) {
		t.Error("progress after the request ended was kept")
	}
}
