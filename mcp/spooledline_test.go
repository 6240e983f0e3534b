package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
)

// compactLine feeds line to a compactor in random pieces, the way the
// transport feeds what it spools, with the line itself as the spool file.
func compactLine(t *testing.T, line string, seed int64) ([]byte, *spooledStrings, bool) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "line-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	c := newLineCompactor(f)
	r := rand.New(rand.NewSource(seed))
	for rest := []byte(line); len(rest) > 0; {
		n := min(len(rest), 1+r.Intn(9000))
		c.feed(rest[:n])
		rest = rest[n:]
	}
	return c.result()
}

func b64Run(n int, seed int64) string {
	b := make([]byte, n*3/4)
	rand.New(rand.NewSource(seed)).Read(b)
	return base64Std(b)
}

func TestASpooledLinesShortCopyLeavesOnlyLongBlobsInTheFile(t *testing.T) {
	big1, big2 := b64Run(200_000, 1), b64Run(elideStringBytes+4, 2)
	line := `{"jsonrpc":"2.0","id":7,"result":{"contents":[` +
		`{"uri":"a \"quoted\" \\ one","blob":"` + big1 + `"},` +
		`{"uri":"b", "BLOB" : "` + big2 + `"},` +
		`{"uri":"c","blob":"QUFB","text":"blob"},` +
		`{"uri":"d","mimeType":"x/y","blob":"` + b64Run(1000, 3) + `"}]}}` + "\n"
	for seed := range int64(20) {
		compact, long, ok := compactLine(t, line, seed)
		if !ok {
			t.Fatalf("seed %d: the line with two long blobs was not compacted", seed)
		}
		var v struct {
			ID     int
			Result struct{ Contents []map[string]string }
		}
		if err := json.Unmarshal(compact, &v); err != nil || v.ID != 7 || len(v.Result.Contents) != 4 {
			t.Fatalf("seed %d: the short copy is not the message: %v\n%.300s", seed, err, compact)
		}
		cs := v.Result.Contents
		if cs[0]["uri"] != `a "quoted" \ one` || cs[2]["blob"] != "QUFB" || cs[2]["text"] != "blob" || cs[3]["blob"] != b64Run(1000, 3) || cs[3]["mimeType"] != "x/y" {
			t.Errorf("seed %d: short strings changed: %v", seed, cs)
		}
		if len(compact) > 2000 {
			t.Errorf("seed %d: the short copy is %d bytes", seed, len(compact))
		}
		for i, want := range map[int]string{0: big1, 1: cs[1]["BLOB"]} {
			raw, _ := json.Marshal(cs[i]["blob"] + cs[i]["BLOB"])
			r, n, ok := long.Open(raw)
			if !ok {
				t.Fatalf("seed %d: placeholder %s does not open", seed, raw)
			}
			got, _ := io.ReadAll(r)
			if i == 1 {
				want = big2
			}
			if string(got) != want || n != int64(len(want)) {
				t.Errorf("seed %d: blob %d opened to %d bytes (n %d), want the %d of the line", seed, i, len(got), n, len(want))
			}
		}
		if want := len(line) - 1 - len(compact); long.elided != want {
			t.Errorf("seed %d: elided %d bytes, want %d", seed, long.elided, want)
		}
	}
}

func TestAPlaceholderAServerWritesOpensNothing(t *testing.T) {
	big := b64Run(100_000, 4)
	_, long, ok := compactLine(t, `{"id":1,"result":{"blob":"`+big+`"}}`, 1)
	if !ok {
		t.Fatal("not compacted")
	}
	for _, forged := range []string{
		`"` + placeholderPrefix + `AAAAAAAAAAAAAAAAAAAAAAAAAA#0"`, // another nonce
		`"` + placeholderPrefix + long.nonce + `#1"`,              // past the spans
		`"` + placeholderPrefix + long.nonce + `#-0"`,
		`"` + placeholderPrefix + long.nonce + `#"`,
		`"` + placeholderPrefix + long.nonce + `#0`,
		`"` + placeholderPrefix + long.nonce + `#00000000000000000000000000000000000000"`,
		`"QUFB"`,
	} {
		if _, _, ok := long.Open([]byte(forged)); ok {
			t.Errorf("%s opened a span", forged)
		}
	}
	if _, _, ok := long.Open([]byte(long.placeholder(0))); !ok {
		t.Error("the real placeholder does not open")
	}
}

func TestALineWithAnyOtherLongStringIsReadBackWhole(t *testing.T) {
	big := b64Run(100_000, 5)
	for name, line := range map[string]string{
		"long text":                   `{"id":1,"result":{"contents":[{"uri":"a","blob":"` + big + `"},{"uri":"b","text":"` + big + `"}]}}`,
		"escaped slash":               `{"id":1,"result":{"blob":"` + big[:50_000] + `\/` + big[50_000:] + `"}}`,
		"escaped line break":          `{"id":1,"result":{"blob":"` + big[:50_000] + `\n` + big[50_000:] + `"}}`,
		"not base64":                  `{"id":1,"result":{"blob":"` + big[:50_000] + `-_` + big[50_000:] + `"}}`,
		"escaped key":                 `{"id":1,"result":{"bl\u006fb":"` + big + `"}}`,
		"key after a value":           `{"id":1,"result":{"x":"blob","y":"` + big + `"}}`,
		"unterminated string":         `{"id":1,"result":{"blob":"` + big,
		"no long string":              `{"id":1,"result":{"blob":"QUFB"}}`,
		"not base64, escape after it": `{"id":1,"result":{"blob":"` + big[:len(big)-10] + `-` + big[len(big)-10:] + `","t":"a\b"}}`,
		"short copy too long":         `{"id":1,"result":{"blob":"` + big + `","pad":[` + strings.Repeat(`"x",`, maxCompactBytes/4) + `"x"]}}`,
	} {
		for seed := range int64(5) {
			if _, _, ok := compactLine(t, line, seed); ok {
				t.Errorf("%s (seed %d): compacted, so it would not be read back whole", name, seed)
			}
		}
	}
}

func TestAnAnswerNoRequestWaitsForClosesItsSpoolFile(t *testing.T) {
	big := b64Run(100_000, 6)
	_, long, ok := compactLine(t, `{"id":1,"result":{"blob":"`+big+`"}}`, 1)
	if !ok {
		t.Fatal("not compacted")
	}
	tr := newLineTransport(strings.NewReader(""), nopWriteCloser{}, libLogger(nil), "")
	tr.dispatch([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), long)
	if _, err := long.file.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the spool file of an answer nobody waits for is still open: %v", err)
	}
}

func TestOnlyAnAnswerToAStreamingRequestIsServedByTheShortCopy(t *testing.T) {
	big := b64Run(100_000, 7)
	tr := newLineTransport(strings.NewReader(""), nopWriteCloser{}, libLogger(nil), "")
	tr.pending["int64:1"] = pendingRequest{ch: make(chan *transport.JSONRPCResponse, 1), sink: &rawSink{streamsBlobs: true}}
	tr.pending["int64:2"] = pendingRequest{ch: make(chan *transport.JSONRPCResponse, 1)}
	for line, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{"blob":"` + big + `"}}`:                                   true,
		`{"jsonrpc":"2.0","id":2,"result":{"blob":"` + big + `"}}`:                                   false, // did not ask
		`{"jsonrpc":"2.0","id":3,"result":{"blob":"` + big + `"}}`:                                   false, // nobody waits
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","blob":"` + big + `"}}`:     false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"no","data":{"blob":"` + big + `"}}}`:   false,
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"blob":"` + big + `"}}`: false,
	} {
		compact, _, ok := compactLine(t, line, 1)
		if !ok {
			t.Fatalf("not compacted: %.80s", line)
		}
		if got := tr.wantsShortCopy(compact); got != want {
			t.Errorf("%.60s: served by the short copy %v, want %v", line, got, want)
		}
	}
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

func TestABlobReadThroughMcpReadIsDecodedFromTheSpoolFileInBothEras(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			rt, _ := longRuntime(t, era)
			args := json.RawMessage(`{"uri":"` + longBlobURI + `"}`)
			if _, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", args); err != nil {
				t.Fatal(err) // warm: the connection's own allocations are done
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out, err := rt.CallMeta(context.Background(), "mcp_read_long-lines", args)
			runtime.ReadMemStats(&after)
			sum := sha256.Sum256(longBytes())
			if err != nil || !bytes.Contains(out, []byte(`"spilled":true`)) || !bytes.Contains(out, []byte(hex.EncodeToString(sum[:]))) {
				t.Fatalf("not the blob's spill: %s %v", out, err)
			}
			b64 := len(base64Std(longBytes()))
			// The race detector's own allocations (about 1.3 MB here) would
			// blur the bound; the spill's hash is checked above all the same.
			if got := after.TotalAlloc - before.TotalAlloc; got > uint64(b64) && !raceEnabled {
				t.Errorf("reading a blob of %d base64 bytes allocated %d bytes: the answer was held in memory", b64, got)
			}

			// The TUI's raw read (no streaming) still gets every byte.
			items, err := rt.ReadResourceRaw(context.Background(), "long-lines", longBlobURI)
			if err != nil || len(items) != 1 || !bytes.Contains(items[0], []byte(base64Std(longBytes()))) {
				t.Errorf("the raw read lost the blob: %d items, %v", len(items), err)
			}
		})
	}
}

// FuzzLineCompactor checks that a short copy stands for its line exactly:
// with every placeholder replaced by the span it opens, it is the line,
// byte for byte; every span is pure base64; and the copy is valid JSON
// exactly when the line is. In the input, '@' stands for a 70,000-character
// run of base64 and '%' for one of exactly elideStringBytes, so the fuzzer
// builds long values cheaply; step sets the size of the pieces fed.
func FuzzLineCompactor(f *testing.F) {
	f.Add(`{"id":1,"result":{"contents":[{"uri":"a","blob":"@"}]}}`, uint16(7))
	f.Add(`{"id":1,"result":{"contents":[{"uri":"a\"b","BLOB" : "@"},{"blob":"%"},{"text":"x\\"}]}}`, uint16(1))
	f.Add("  {\"blob\":\"@\",\"blob\":\"@@\"}\r\n", uint16(3000))
	f.Add(`{"blob":"@\/@"}`, uint16(65535))
	f.Add(`{"x":"blob","y":"@"}`, uint16(2))
	f.Add(`{"blob":"@`, uint16(9))
	run := base64Std(bytes.Repeat([]byte{0xfb, 0xef, 0xbe}, 70_000/4+1))[:70_000]
	exact := run[:elideStringBytes]
	f.Fuzz(func(t *testing.T, tmpl string, step uint16) {
		if len(tmpl) > 4096 {
			return
		}
		line := strings.NewReplacer("@", run, "%", exact).Replace(tmpl)
		file, err := os.CreateTemp(t.TempDir(), "line-*.tmp")
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		file.WriteString(line)
		c := newLineCompactor(file)
		size := int(step)%70_001 + 1
		for rest := []byte(line); len(rest) > 0; {
			n := min(len(rest), size)
			c.feed(rest[:n])
			rest = rest[n:]
		}
		compact, long, ok := c.result()
		if !ok {
			return
		}
		rebuilt := string(compact)
		for i, sp := range long.spans {
			r, n, ok := long.Open([]byte(long.placeholder(i)))
			if !ok || n != sp.n {
				t.Fatalf("placeholder %d does not open to its span", i)
			}
			b, _ := io.ReadAll(r)
			for _, ch := range b {
				if !isBase64[ch] {
					t.Fatalf("span %d holds %q, not base64", i, ch)
				}
			}
			rebuilt = strings.Replace(rebuilt, long.placeholder(i), `"`+string(b)+`"`, 1)
		}
		if want := strings.TrimRight(line, "\r\n"); rebuilt != want {
			t.Fatalf("the short copy stands for another line:\n got %.300q\nwant %.300q", rebuilt, want)
		}
		if json.Valid(compact) != json.Valid([]byte(line)) {
			t.Fatalf("the short copy is valid JSON %v, the line %v", json.Valid(compact), json.Valid([]byte(line)))
		}
	})
}

// BenchmarkLineCompactor feeds the compactor 4 MiB lines in 64 KiB pieces,
// as the transport does: a blob answer, and a line of short strings only
// (which cost the square of a piece while each string looked for a
// backslash to the piece's end).
func BenchmarkLineCompactor(b *testing.B) {
	blob := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"a","blob":"` + b64Run(4<<20, 9) + `"}]}}`
	short := `{"jsonrpc":"2.0","id":1,"result":{"rows":[` + strings.Repeat(`"",`, 4<<20/3) + `""]}}`
	for name, line := range map[string]string{"blob": blob, "short-strings": short} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				c := newLineCompactor(nil)
				for rest := []byte(line); len(rest) > 0; {
					n := min(len(rest), 64<<10)
					c.feed(rest[:n])
					rest = rest[n:]
				}
			}
		})
	}
}
