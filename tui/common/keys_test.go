package common

import (
	"slices"
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
	has := func(s HelpState, desc string) bool {
		for _, b := range k.ShortHelp(s) {
			if b.Help().Desc == desc {
				return true
			}
		}
		return false
	}
	if !has(HelpState{}, "filter") || has(HelpState{}, "next page") {
		t.Error("catalog help")
	}
	if !has(HelpState{ViewerFocused: true}, "next page") {
		t.Error("viewer help")
	}
	if !has(HelpState{Dialog: "form:tool:x"}, "submit") || has(HelpState{Dialog: "help"}, "submit") {
		t.Error("dialog help")
	}
}

func TestTheLogKeyIsInTheHelpUniqueAndRebindable(t *testing.T) {
	k := DefaultKeyMap()
	for name, b := range k.bindingsByName() {
		if name != "logs" && slices.Contains(b.Keys(), "ctrl+l") {
			t.Errorf("ctrl+l is also bound to %s", name)
		}
	}
	inHelp := false
	for _, g := range k.FullHelp(HelpState{}) {
		for _, b := range g.Keys {
			inHelp = inHelp || (b.Help().Key == "ctrl+l" && b.Enabled())
		}
	}
	if !inHelp {
		t.Error("the help screen does not list ctrl+l")
	}
	if got := k.ShortHelp(HelpState{Logs: true}); len(got) == 0 || got[0].Help().Desc != "prev server" {
		t.Errorf("the help line while the log has the keys: %v", got)
	}
	if err := k.Rebind(map[string][]string{"logs": {"ctrl+g"}}); err != nil || k.Logs.Keys()[0] != "ctrl+g" {
		t.Errorf("rebinding the log key: %v %v", err, k.Logs.Keys())
	}
}
