package render

import (
	"path/filepath"
	"runtime"
	"testing"
)

// A store holds only what lies under its Root: not a relative path, not
// one that climbs out with "..", not a sibling whose name starts like the
// Root's, not another host's share.
func TestASpillStoreHoldsOnlyPathsUnderItsRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mcp-resources")
	s := NewSpillStore(root)
	for path, want := range map[string]bool{
		filepath.Join(root, "demo", "ab.png"):                 true,
		filepath.Join(root, "demo", "..", "demo", "ab.png"):   true,
		filepath.Join("demo", "ab.png"):                       false,
		filepath.Join(root, "..", "secret"):                   false,
		root + "-evil" + string(filepath.Separator) + "x.png": false,
		filepath.Join(filepath.Dir(root), "other", "ab.png"):  false,
		"":                   false,
		`\\host\share\x.png`: false,
		filepath.Join(root, "demo", "..", "..", "..", "etc", "x"): false,
	} {
		if got := s.Holds(path); got != want {
			t.Errorf("Holds(%q) = %v, want %v", path, got, want)
		}
	}
	if runtime.GOOS != "windows" && s.Holds("/etc/passwd") {
		t.Error("the store holds /etc/passwd")
	}
	var none *SpillStore
	if none.Holds(filepath.Join(root, "demo", "ab.png")) {
		t.Error("a nil store holds a file")
	}
}
