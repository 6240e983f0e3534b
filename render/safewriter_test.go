package render

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// hostileOutput holds every sequence a server, a model or a file could use
// against the terminal howl prints on.
var hostileOutput = []string{
	"\x1b]52;c;cm0gLXJmIC8=\x07",                // OSC 52: write the clipboard
	"\x1b]0;pwned\x07",                          // OSC 0: retitle the window
	"\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\", // OSC 8 hyperlink
	"\x1bP+q544e\x1b\\",                         // DCS
	"\x1b[201~",                                 // end of bracketed paste
	"\x1bc",                                     // full reset
	"\u009b1;1H",                                // 8-bit CSI as UTF-8
	"\x9b2J",                                    // raw 8-bit CSI
	"\u009d0;title\u009c",                       // 8-bit OSC ... ST
	"\u202eevil\u202c",                          // right-to-left override
	"\r\x1b[2K",                                 // erase the line
}

func TestSafeWriterLetsNoEscapeThroughWhereverTheWritesSplit(t *testing.T) {
	whole := "before ✓ naïve " + strings.Join(hostileOutput, " mid ") + " after 界\n\ttabbed\n"
	want := Sanitize(whole)
	for size := 1; size <= len(whole); size++ {
		var out bytes.Buffer
		w := NewSafeWriter(&out)
		for i := 0; i < len(whole); i += size {
			w.Write([]byte(whole[i:min(i+size, len(whole))]))
		}
		w.Flush()
		if out.String() != want {
			t.Fatalf("writes of %d bytes: got %q, want %q", size, out.String(), want)
		}
		if bytes.ContainsAny(out.Bytes(), "\x1b\x07\r\x9b\x9c\x9d") || strings.ContainsAny(out.String(), "\u202e\u009b") {
			t.Fatalf("writes of %d bytes let a control through: %q", size, out.String())
		}
	}
}

func TestSafeWriterPassesSafeWritesOnWithoutCopying(t *testing.T) {
	safe := []byte(strings.Repeat(`{"id": "demo://scale/000001", "title": "naïve ✓"},`+"\n\t", 1000))
	w := NewSafeWriter(io.Discard)
	if allocs := testing.AllocsPerRun(20, func() { w.Write(safe) }); allocs != 0 {
		t.Errorf("a write with nothing to remove made %.0f allocations; howl ls --json writes 45 MB of such bytes, and each copy of them is garbage", allocs)
	}
}

func TestSafeWriterShowsAPromptWithoutWaitingForANewline(t *testing.T) {
	var out bytes.Buffer
	w := NewSafeWriter(&out)
	w.Write([]byte("name (string): "))
	if out.String() != "name (string): " {
		t.Errorf("a prompt must be written at once, got %q", out.String())
	}
}

func TestSafeWriterDropsAnEndlessEscapeInBoundedMemory(t *testing.T) {
	var out bytes.Buffer
	w := NewSafeWriter(&out)
	w.Write([]byte("\x1b]0;"))
	chunk := bytes.Repeat([]byte("x"), 4096)
	for range 10 * MaxHeldEscape / len(chunk) {
		w.Write(chunk)
		if len(w.held) > MaxHeldEscape {
			t.Fatalf("held %d bytes, more than MaxHeldEscape", len(w.held))
		}
	}
	w.Flush()
	if bytes.Contains(out.Bytes(), []byte("\x1b")) {
		t.Error("an escape got through")
	}
}

func FuzzSafeWriterAgreesWithSanitize(f *testing.F) {
	for _, s := range hostileOutput {
		f.Add(s, uint8(1), uint8(3))
		f.Add("a"+s+"b", uint8(2), uint8(5))
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint8) {
		var out bytes.Buffer
		w := NewSafeWriter(&out)
		cuts := []int{int(a) % (len(s) + 1), int(b) % (len(s) + 1)}
		if cuts[0] > cuts[1] {
			cuts[0], cuts[1] = cuts[1], cuts[0]
		}
		w.Write([]byte(s[:cuts[0]]))
		w.Write([]byte(s[cuts[0]:cuts[1]]))
		w.Write([]byte(s[cuts[1]:]))
		w.Flush()
		if got, want := out.String(), Sanitize(s); got != want {
			t.Fatalf("split at %v: got %q, want %q", cuts, got, want)
		}
	})
}
