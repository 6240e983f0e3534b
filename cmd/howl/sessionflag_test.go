package main

import (
	"slices"
	"testing"
)

// --session runs a verb in the open session, except where it names a
// stored conversation (howl ask --session ID, howl --session ID): there
// only --session=true does.
func TestSessionFlagLeavesTheConversationIDOfAskAndTheTUIAlone(t *testing.T) {
	for _, c := range []struct {
		args, rest []string
		session    bool
	}{
		{[]string{"call", "--session", "demo", "echo"}, []string{"call", "demo", "echo"}, true},
		{[]string{"call", "demo", "echo", "--session=true"}, []string{"call", "demo", "echo"}, true},
		{[]string{"ask", "--session", "abc", "q"}, []string{"ask", "--session", "abc", "q"}, false},
		{[]string{"--session", "abc"}, []string{"--session", "abc"}, false},
		{[]string{"ask", "--session=true", "q"}, []string{"ask", "q"}, true},
		{[]string{"call", "demo", "echo", "--", "--session"}, []string{"call", "demo", "echo", "--", "--session"}, false},
	} {
		rest, session := sessionFlag(c.args)
		if session != c.session || !slices.Equal(rest, c.rest) {
			t.Errorf("sessionFlag(%q) = %q, %v; want %q, %v", c.args, rest, session, c.rest, c.session)
		}
	}
}
