package render

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// symlinkOrSkip makes link point at target, or skips the test where this
// system cannot make a link that os.Lstat sees as one (Windows without the
// privilege; Wine 8, whose links Lstat cannot read).
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("SKIP: no symbolic links here, so the refusal of one cannot be tested:", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("SKIP: this system makes symbolic links os.Lstat does not see as links (%v), so the refusal of one cannot be tested", err)
	}
}

// noHome makes the cache fall back to $TMPDIR/howl-cache, with TMPDIR a
// fresh directory; it returns that fallback path.
func noHome(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "HOWL_CACHE_DIR", "LocalAppData"} {
		t.Setenv(k, "")
	}
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} { // Unix's, Windows'
		t.Setenv(k, tmp)
	}
	return filepath.Join(tmp, "howl-cache")
}

func TestFallbackCacheDirOpenToOtherUsersIsRefusedForSpills(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows guards its per-user temp directory with ACLs, not modes")
	}
	fallback := noHome(t)
	if err := os.Mkdir(fallback, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(fallback, 0o777); err != nil { // as another user would leave it
		t.Fatal(err)
	}
	_, err := DefaultSpillStore()
	var pe *PrivacyError
	if !errors.As(err, &pe) || pe.Path != fallback || !strings.Contains(err.Error(), "0777") || !strings.Contains(err.Error(), "HOWL_CACHE_DIR") {
		t.Fatalf("a fallback cache open to others must be refused, saying its mode and the fix: %v", err)
	}
}

func TestFallbackCacheDirIsCreatedPrivate(t *testing.T) {
	fallback := noHome(t)
	dir, err := CacheDir()
	if err != nil || dir != fallback {
		t.Fatalf("CacheDir = %q, %v; want %s", dir, err, fallback)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("the fallback was not created: %v", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("the fallback was created %#o, want 0700", fi.Mode().Perm())
	}
	if again, err := CacheDir(); err != nil || again != dir {
		t.Errorf("howl's own fallback must be accepted on the next run: %q, %v", again, err)
	}
}

func TestFallbackCacheDirThatIsALinkIsRefused(t *testing.T) {
	fallback := noHome(t)
	elsewhere := t.TempDir() // private, ours, but reached through a link someone made
	symlinkOrSkip(t, elsewhere, fallback)
	var pe *PrivacyError
	if _, err := CacheDir(); !errors.As(err, &pe) || !strings.Contains(pe.Problem, "symbolic link") {
		t.Errorf("a fallback that is a link must be refused: %v", err)
	}
}

func TestOpenPrivateNeverWritesThroughAPlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	const before = "the victim's own data\n"
	if err := os.WriteFile(victim, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.log")
	symlinkOrSkip(t, victim, soft)
	hard := filepath.Join(dir, "hard.log")
	if err := os.Link(victim, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	for _, name := range []string{soft, hard} {
		for _, flag := range []int{os.O_CREATE | os.O_WRONLY | os.O_APPEND, os.O_CREATE | os.O_WRONLY | os.O_TRUNC} {
			f, err := OpenPrivate(name, flag, 0o600)
			var pe *PrivacyError
			if !errors.As(err, &pe) {
				if f != nil {
					f.Close()
				}
				if runtime.GOOS == "windows" && name == hard {
					continue // no link count checked there
				}
				t.Errorf("%s (flag %#x): opened, want it refused: %v", filepath.Base(name), flag, err)
			}
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != before {
		t.Errorf("the victim changed: %q", got)
	}
}

func TestOpenPrivateCreatesAndReopensItsOwnFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.log")
	for i := 0; i < 2; i++ {
		f, err := OpenPrivate(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("line\n")
		f.Close()
	}
	f, err := OpenPrivate(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(name); fi.Size() != 0 {
		t.Errorf("O_TRUNC left %d bytes", fi.Size())
	}
}
