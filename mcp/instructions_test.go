package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/mcp/demo"
)

// bigInstructions is 8 MiB of a 3-byte character: MaxKeptInstructionsBytes
// is not a multiple of 3, so a cut at the bound would split one.
var bigInstructions = strings.Repeat("€", 8<<20/3)

// serveBigInstructions is mcp-go's server whose handshake carries
// bigInstructions.
func serveBigInstructions() int {
	s := server.NewMCPServer("big-instructions", "1.0", server.WithToolCapabilities(false), server.WithInstructions(bigInstructions))
	if err := demo.ServeStdio(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// A server's handshake instructions are kept up to MaxKeptInstructionsBytes,
// cut at a character boundary, with a note of how much was not kept: the
// status (and `howl servers --json`) no longer holds 8 MiB of them.
func TestHandshakeInstructionsAreKeptUpToTheBoundSayingWhatWasCut(t *testing.T) {
	rt := startRuntime(t, fixture("big-instructions"))
	st, _ := rt.ServerStatus("big-instructions")
	if st.State != StateReady {
		t.Fatalf("%s %s", st.State, st.Reason)
	}
	kept := strings.Repeat("€", MaxKeptInstructionsBytes/3)
	note := fmt.Sprintf("%d more bytes of instructions not kept", len(bigInstructions)-len(kept))
	if len(st.Instructions) > MaxKeptInstructionsBytes+200 || !strings.HasPrefix(st.Instructions, kept) ||
		!strings.Contains(st.Instructions[len(kept):], note) || !utf8.ValidString(st.Instructions) {
		t.Fatalf("instructions: %d bytes, ending %q; want the first %d bytes (whole characters) and %q",
			len(st.Instructions), st.Instructions[max(len(st.Instructions)-120, 0):], len(kept), note)
	}
	out, _ := json.Marshal(st)
	if len(out) > MaxKeptInstructionsBytes+4096 {
		t.Errorf("the status's JSON is %d bytes", len(out))
	}
}
