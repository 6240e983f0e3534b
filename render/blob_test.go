package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 100)...)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// filesUnder lists every file below root, relative to it.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestReadSpillsBinaryAndReturnsMetadata(t *testing.T) {
	store := NewSpillStore(filepath.Join(t.TempDir(), "mcp-resources"))
	it, err := RenderBlob(store, "github", "resource://github/chart", "image/png", b64(pngBytes), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := it.(*SpillResult)
	if !ok {
		t.Fatalf("got %T, want *SpillResult", it)
	}
	wantPath := filepath.Join(store.Root, "github", sha(pngBytes)+".png")
	want := SpillResult{Spilled: true, Path: wantPath, URI: "resource://github/chart", MimeType: "image/png",
		Sniffed: false, SizeBytes: int64(len(pngBytes)), SHA256: sha(pngBytes)}
	if *sp != want {
		t.Errorf("got %+v\nwant %+v", *sp, want)
	}
	got, err := os.ReadFile(wantPath)
	if err != nil || !bytes.Equal(got, pngBytes) {
		t.Fatalf("spill file content differs (err %v)", err)
	}
	// Windows keeps no Unix modes: the spill store is in the user's profile.
	if fi, _ := os.Stat(wantPath); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	for _, dir := range []string{store.Root, filepath.Dir(wantPath)} {
		if fi, _ := os.Stat(dir); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	if keys := strings.Join(keysInOrder(t, marshal(t, sp)), ","); keys != "spilled,path,uri,mime_type,sniffed,size_bytes,sha256" {
		t.Errorf("field order %s", keys)
	}
	if b := marshal(t, sp); !contains(b, `"sniffed":false`) {
		t.Errorf("sniffed missing: %s", b)
	}
	if files := filesUnder(t, store.Root); len(files) != 1 {
		t.Errorf("files left under the root: %v", files)
	}
}

func TestBlobThatDecodesToTextIsShownAsTextWhateverItsMime(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	text := "hello 世界 👍\nsecond line\n"
	it, err := RenderBlob(store, "srv", "mem://x", "image/png", b64([]byte(text)), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := it.(*TextResult)
	if !ok || tr.Text != text || !tr.Sniffed || tr.MimeType != "image/png" {
		t.Fatalf("got %#v", it)
	}
	if !strings.Contains(tr.Note, `blob decoded to valid UTF-8 (claimed mime type "image/png") and is shown as text`) {
		t.Errorf("note %q", tr.Note)
	}
	if files := filesUnder(t, store.Root); len(files) != 0 {
		t.Errorf("text blob left files: %v", files)
	}
	// The pattern filter applies to sniffed text too.
	it, _ = RenderBlob(store, "srv", "mem://x", "", b64([]byte(text)), PageOptions{Pattern: "second"})
	if tr := it.(*TextResult); tr.Text != "1-hello 世界 👍\n2:second line\n" {
		t.Errorf("filtered sniffed text %q", tr.Text)
	}
}

func TestBlobSniffVerdicts(t *testing.T) {
	emoji := "👍" // 4 bytes
	for _, tc := range []struct {
		name   string
		data   []byte
		isText bool
	}{
		{"empty", nil, true},
		{"ascii", []byte("plain"), true},
		{"NUL byte", []byte("plain\x00text"), false},
		{"invalid byte", []byte("caf\xe9"), false},
		{"ends mid-character", []byte("ok" + emoji[:3]), false},
		{"character split across decode chunks", []byte(strings.Repeat("a", blobChunk-2) + emoji + "z"), true},
		{"invalid byte in a later chunk", []byte(strings.Repeat("a", blobChunk+10) + "\xff"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := NewSpillStore(t.TempDir())
			b, err := decodeBlob(store, "s", "u", "application/octet-stream", b64(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if gotText := b.spill == nil; gotText != tc.isText {
				t.Fatalf("text = %v, want %v", gotText, tc.isText)
			}
			if tc.isText && b.text != string(tc.data) {
				t.Errorf("text differs from the decoded bytes")
			}
			if !tc.isText {
				got, _ := os.ReadFile(b.spill.Path)
				if !bytes.Equal(got, tc.data) || b.spill.SHA256 != sha(tc.data) {
					t.Errorf("spilled bytes or hash differ")
				}
			}
		})
	}
}

func TestInvalidBase64IsAStructuredErrorAndLeavesNoFile(t *testing.T) {
	for _, tc := range []struct{ name, b64, want string }{
		{"illegal character", "iVBORw0K!!!!", "is not valid base64: an illegal character or misplaced padding"},
		{"missing padding", b64(pngBytes)[:9], "ends in the middle of a 4-character group"},
		{"illegal after binary was spilling", b64(pngBytes) + "%%%%", "is not valid base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := NewSpillStore(t.TempDir())
			_, err := RenderBlob(store, "s", "mem://bad", "image/png", tc.b64, PageOptions{})
			var rerr *Error
			if !errors.As(err, &rerr) || rerr.Code != CodeInvalidBase64 || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), `blob "mem://bad"`) {
				t.Fatalf("got %v", err)
			}
			if files := filesUnder(t, store.Root); len(files) != 0 {
				t.Errorf("files left behind: %v", files)
			}
		})
	}
}

func TestBase64WithLineBreaksDecodes(t *testing.T) {
	enc := b64(pngBytes)
	var wrapped strings.Builder
	for i := 0; i < len(enc); i += 76 {
		wrapped.WriteString(enc[i:min(i+76, len(enc))] + "\r\n")
	}
	it, err := RenderBlob(NewSpillStore(t.TempDir()), "s", "u", "image/png", wrapped.String(), PageOptions{})
	if err != nil || it.(*SpillResult).SHA256 != sha(pngBytes) {
		t.Fatalf("got %v, %v", it, err)
	}
}

func TestBlobOverTheDecodeCeilingIsAnErrorCitingTheConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 50 MiB")
	}
	for _, tc := range []struct {
		name string
		size int
	}{
		{"caught before decoding", MaxDecodedBlob + 4096},
		{"caught while decoding", MaxDecodedBlob + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := NewSpillStore(t.TempDir())
			_, err := RenderBlob(store, "s", "mem://big", "", b64(make([]byte, tc.size)), PageOptions{})
			var rerr *Error
			if !errors.As(err, &rerr) || rerr.Code != CodeBlobTooLarge ||
				!strings.Contains(err.Error(), "over the 52428800-byte (50 MiB) MaxDecodedBlob ceiling") {
				t.Fatalf("got %v", err)
			}
			if files := filesUnder(t, store.Root); len(files) != 0 {
				t.Errorf("files left behind: %v", files)
			}
		})
	}
}

func TestSpillOfSameContentGivesSamePathWithoutRewriting(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	first, err := RenderBlob(store, "s", "a", "image/png", b64(pngBytes), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := first.(*SpillResult).Path
	before, _ := os.Stat(path)
	second, err := RenderBlob(store, "s", "b", "image/png; charset=binary", b64(pngBytes), PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if second.(*SpillResult).Path != path {
		t.Errorf("second path %s, want %s", second.(*SpillResult).Path, path)
	}
	if !os.SameFile(before, after) {
		t.Error("the identical spill file was rewritten")
	}
	if files := filesUnder(t, store.Root); len(files) != 1 {
		t.Errorf("files: %v", files)
	}
}

func TestSpillReplacesAFileOfTheWrongSize(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	path := filepath.Join(store.Root, "s", sha(pngBytes)+".png")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, pngBytes[:10], 0o600) // as a crash might leave it
	if _, err := RenderBlob(store, "s", "a", "image/png", b64(pngBytes), PageOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, pngBytes) {
		t.Error("the short file was not replaced")
	}
}

func TestConcurrentSpillsOfTheSameContentAgree(t *testing.T) {
	store := NewSpillStore(t.TempDir())
	data := bytes.Repeat(pngBytes, 300)
	enc := b64(data)
	const n = 8
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			it, err := RenderBlob(store, "s", "u", "image/png", enc, PageOptions{})
			errs[i] = err
			if err == nil {
				paths[i] = it.(*SpillResult).Path
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Fatalf("goroutine %d: path %q err %v; want %q", i, paths[i], errs[i], paths[0])
		}
	}
	if got, _ := os.ReadFile(paths[0]); !bytes.Equal(got, data) {
		t.Error("spill file content differs")
	}
	if files := filesUnder(t, store.Root); len(files) != 1 {
		t.Errorf("temp files left behind: %v", files)
	}
}

func TestNilStoreSpillIsAnErrorButTextStillWorks(t *testing.T) {
	if _, err := RenderBlob(nil, "s", "u", "", b64([]byte("text")), PageOptions{}); err != nil {
		t.Errorf("text blob without a store: %v", err)
	}
	_, err := RenderBlob(nil, "s", "u", "", b64(pngBytes), PageOptions{})
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Code != CodeSpillFailed || !strings.Contains(err.Error(), "no spill store is configured") {
		t.Errorf("got %v", err)
	}
}

func TestMimeExtensionAllowlist(t *testing.T) {
	for mime, want := range map[string]string{
		"image/png":                 "png",
		"IMAGE/PNG":                 "png",
		"image/png; charset=binary": "png",
		"  image/jpeg ":             "jpg",
		"image/gif":                 "gif",
		"image/webp":                "webp",
		"image/svg+xml":             "svg",
		"application/pdf":           "pdf",
		"audio/wav":                 "wav",
		"audio/mpeg":                "mp3",
		"audio/ogg":                 "ogg",
		"application/zip":           "zip",
		"application/gzip":          "gz",
		"application/x-tar":         "tar",
		"application/json":          "json",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
		// crafted or unknown types
		"":                                  "bin",
		"../../x":                           "bin",
		"image/png/../..":                   "bin",
		"image/../../../etc/passwd":         "bin",
		"image/png\x00.sh":                  "bin",
		"image/pngé":                        "bin",
		"ｉｍａｇｅ/ｐｎｇ":                         "bin",
		"image/\u212Aey":                    "bin",
		strings.Repeat("a", 200):            "bin",
		"image/" + strings.Repeat("p", 194): "bin",
		"text/x-shellscript":                "bin",
		"image/":                            "bin",
		"png":                               "bin",
	} {
		if got := mimeExtension(mime); got != want {
			t.Errorf("mimeExtension(%q) = %q, want %q", mime, got, want)
		}
	}
	for mime, ext := range mimeExtensions {
		if !safeExtension(ext) {
			t.Errorf("allowlisted %s maps to unsafe extension %q", mime, ext)
		}
	}
}

func TestServerSegmentIsOneSafeDistinctPathSegment(t *testing.T) {
	seen := map[string]string{}
	for _, server := range []string{
		"github", "my-server_2", "", ".", "..", "../../etc", "a/b", "a_b", "a b", "a\\b",
		".hidden", "日本", strings.Repeat("x", 500), strings.Repeat("x", 501), "a..b", "C:", "x\x00y",
		"con", "NUL", "Com1", "lpt9.db", "aux.x", "x.", // no directory of theirs on Windows
	} {
		seg := serverSegment(server)
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") || len(seg) > maxServerSegment ||
			strings.ContainsAny(seg, `/\:`+"\x00") || windowsReserved(seg) {
			t.Errorf("serverSegment(%q) = %q is unsafe", server, seg)
		}
		if root := filepath.FromSlash("/root"); filepath.Dir(filepath.Join(root, seg)) != root {
			t.Errorf("serverSegment(%q) = %q escapes its parent", server, seg)
		}
		if prev, ok := seen[seg]; ok {
			t.Errorf("%q and %q both map to %q", prev, server, seg)
		}
		seen[seg] = server
	}
	if serverSegment("github") != "github" || serverSegment("a..b") != "a..b" || serverSegment("console") != "console" || serverSegment("com10") != "com10" {
		t.Error("safe names must be kept as they are")
	}
}

func TestDefaultSpillStoreHonoursHOWL_CACHE_DIR(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOWL_CACHE_DIR", dir)
	s, err := DefaultSpillStore()
	if err != nil || s.Root != filepath.Join(dir, "mcp-resources") || s.Budget != SpillBudget {
		t.Errorf("got %+v, %v", s, err)
	}
	t.Setenv("HOWL_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	s, err = DefaultSpillStore()
	if err != nil || !strings.HasSuffix(s.Root, filepath.Join("howl", "mcp-resources")) {
		t.Errorf("got %+v, %v", s, err)
	}
}
