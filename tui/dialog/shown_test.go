package dialog

import (
	"strings"
	"testing"
)

// A question's message longer than maxShownText is cut at a character
// boundary, saying how much more there is and what becomes of it.
func TestShownTextCutsALongMessageSayingHowMuchMore(t *testing.T) {
	got := shownText(strings.Repeat("é", maxShownText), "sent to the model too")
	if len(got) > maxShownText+100 || !strings.HasSuffix(got, "… (256.0 KiB more not shown, sent to the model too)") {
		t.Errorf("cut message ends %q (%d bytes)", got[max(0, len(got)-80):], len(got))
	}
	if !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Error("the cut splits a character")
	}
	if s := "short"; shownText(s, "") != s {
		t.Error("a short message is changed")
	}
}
