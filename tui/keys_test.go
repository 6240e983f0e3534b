package tui

import (
	"strings"
	"testing"
)

func TestRebindChangesKeysAndRejectsUnknownNames(t *testing.T) {
	k := DefaultKeyMap()
	if err := k.Rebind(map[string][]string{"quit": {"Q", "ctrl+q"}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(k.Quit.Keys(), ","); got != "Q,ctrl+q" || k.Quit.Help().Key != "Q/ctrl+q" {
		t.Errorf("quit keys %q, help %q", got, k.Quit.Help().Key)
	}
	err := k.Rebind(map[string][]string{"qiut": {"x"}, "help": {"h"}})
	if err == nil || !strings.Contains(err.Error(), `unknown binding "qiut"`) || !strings.Contains(err.Error(), "quit") {
		t.Fatalf("err %v", err)
	}
	if k.Help.Keys()[0] != "?" {
		t.Error("a failed Rebind changed a valid binding")
	}
}

func TestShortHelpDependsOnTheState(t *testing.T) {
	k := DefaultKeyMap()
	has := func(s helpState, desc string) bool {
		for _, b := range k.ShortHelp(s) {
			if b.Help().Desc == desc {
				return true
			}
		}
		return false
	}
	if !has(helpState{focus: focusList}, "filter") || has(helpState{focus: focusList}, "next page") {
		t.Error("catalog help")
	}
	if !has(helpState{focus: focusRight, viewerOpen: true}, "next page") {
		t.Error("viewer help")
	}
	if !has(helpState{dialog: "form:tool:x"}, "submit") || has(helpState{dialog: "help"}, "submit") {
		t.Error("dialog help")
	}
}
