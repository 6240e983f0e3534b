package common

import (
	"runtime"
	"testing"
)

// The TUI holds one P more than the runtime picked, so a key handed over
// by the input reader finds an idle one while filter workers (Workers of
// them) fill the rest; and it gives the P back when it ends.
func TestTheTUIKeepsASpareProcessorForItsUpdateLoop(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	was := runtime.GOMAXPROCS(0)
	restore := KeepSpareProc()
	if got := runtime.GOMAXPROCS(0); got != was+1 {
		t.Errorf("GOMAXPROCS while the TUI runs = %d, want %d", got, was+1)
	}
	if got := Workers(); got != max(1, was) {
		t.Errorf("Workers() = %d with a spare P over %d, want %d (every P but the spare)", got, was, max(1, was))
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != was {
		t.Errorf("GOMAXPROCS after the TUI = %d, want %d back", got, was)
	}
	if got := Workers(); got != was {
		t.Errorf("Workers() after the TUI = %d, want %d", got, was)
	}
}

// A GOMAXPROCS set in the environment is the person's choice: the TUI
// does not add to it, and the workers use every P it gives.
func TestAGOMAXPROCSFromTheEnvironmentIsLeftAlone(t *testing.T) {
	t.Setenv("GOMAXPROCS", "3")
	was := runtime.GOMAXPROCS(0)
	restore := KeepSpareProc()
	defer restore()
	if got := runtime.GOMAXPROCS(0); got != was {
		t.Errorf("GOMAXPROCS = %d with GOMAXPROCS set in the environment, want %d untouched", got, was)
	}
	if got := Workers(); got != was {
		t.Errorf("Workers() = %d, want all %d", got, was)
	}
}
