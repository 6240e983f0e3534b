package main

import (
	"strings"
	"testing"
)

// howl ask shows each message of a sampling request cut to maxSampleShown
// bytes, and says how much more it sends: the whole message goes to the
// model if the person says yes.
func TestASamplingMessageCutOnTheTerminalSaysHowMuchMoreIsSent(t *testing.T) {
	got := shorten(strings.Repeat("a", maxSampleShown+1234))
	if !strings.Contains(got, "1234 bytes more, not shown here, are sent too") {
		t.Errorf("the cut message ends %q", got[len(got)-80:])
	}
	if short := "hello"; shorten(short) != short {
		t.Errorf("a short message is changed: %q", shorten(short))
	}
}
