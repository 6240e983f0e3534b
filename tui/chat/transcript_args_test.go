package chat

import (
	"strings"
	"testing"
)

// The arguments a permission dialog and the transcript show are the ones
// the call sends: a number past float64's precision is not rounded, and a
// nested key written twice is shown twice, as sent.
func TestPrettyArgsShowsTheArgumentsExactlyAsSent(t *testing.T) {
	got := PrettyArgs(`{"tool":"pay","arguments":{"amount":9007199254740993,"to":"a","to":"b"}}`)
	for _, want := range []string{"9007199254740993", `"to": "a"`, `"to": "b"`} {
		if !strings.Contains(got, want) {
			t.Errorf("PrettyArgs does not show %s:\n%s", want, got)
		}
	}
	if got := PrettyArgs("not json {"); got != "not json {" {
		t.Errorf("text that is not JSON is changed: %q", got)
	}
}
