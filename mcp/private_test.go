package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// plantLink points <dir>/logs/<server>.stderr.log at a new victim file, as
// another user with write access to dir could, and returns the victim.
func plantLink(t *testing.T, dir, server string) (victim, content string) {
	t.Helper()
	victim = filepath.Join(t.TempDir(), "victim")
	content = "the victim's own data\n"
	if err := os.WriteFile(victim, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, victim, filepath.Join(dir, "logs", server+".stderr.log"))
	return victim, content
}

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

func victimUnchanged(t *testing.T, victim, content string) {
	t.Helper()
	if got, err := os.ReadFile(victim); err != nil || string(got) != content {
		t.Errorf("howl wrote through the link: the victim now holds %q (%v)", got, err)
	}
}

func TestStderrLogNeverWritesThroughALinkPlantedAtItsPath(t *testing.T) {
	cache := t.TempDir()
	victim, content := plantLink(t, cache, "x")
	var mu sync.Mutex
	var lines []string
	sc := fixture("exit-at-start") // writes two lines to stderr, then exits
	sc.Name = "x"
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{CacheDir: cache, OnEvent: func(e Event) {
		if e.Kind == EventStderr {
			mu.Lock()
			lines = append(lines, e.Line)
			mu.Unlock()
		}
	}})
	defer rt.Close()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	if st, _ := rt.ServerStatus("x"); !strings.Contains(st.StderrTail, "fatal: cannot open database") {
		t.Errorf("the server's stderr must still be kept in memory: %q", st.StderrTail)
	}
	victimUnchanged(t, victim, content)
	mu.Lock()
	defer mu.Unlock()
	said := strings.Join(lines, "\n")
	if !strings.Contains(said, "not logged to a file") || !strings.Contains(said, "symbolic link") {
		t.Errorf("the log pane must say why there is no log file:\n%s", said)
	}
}

func TestRuntimeRefusesAFallbackCacheOpenToOtherUsers(t *testing.T) {
	if !modesApply {
		t.Skip("SKIP: no Unix modes here; the fallback cache is the user's own temp directory, guarded by its ACLs")
	}
	tmp := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "HOWL_CACHE_DIR", "HOWL_CONFIG_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("TMPDIR", tmp)
	// Another user got there first: $TMPDIR/howl-cache open to all, with
	// the log path of server x linked to a victim.
	fallback := filepath.Join(tmp, "howl-cache")
	victim, content := plantLink(t, fallback, "x")
	if err := os.Chmod(fallback, 0o777); err != nil {
		t.Fatal(err)
	}
	sc := fixture("exit-at-start")
	sc.Name = "x"
	rt := NewRuntime(&Config{Servers: []ServerConfig{sc}}, RuntimeOptions{})
	defer rt.Close()
	err := rt.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rt.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), fallback) || !strings.Contains(err.Error(), "0777") || !strings.Contains(err.Error(), "HOWL_CACHE_DIR") {
		t.Errorf("starting with a fallback cache open to others must fail, naming it, its mode and the fix: %v", err)
	}
	victimUnchanged(t, victim, content)
}

func TestTokenStoreNeverReadsOrWritesThroughALinkPlantedAtItsPath(t *testing.T) {
	dir := t.TempDir()
	planted := filepath.Join(t.TempDir(), "planted.json")
	content := `{"https://mcp.example/": {"access_token": "the planter's token"}}`
	if err := os.WriteFile(planted, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tokens.json")
	symlinkOrSkip(t, planted, path)
	s := NewTokenStore(path)
	if tok, ok, err := s.Get("https://mcp.example/"); ok || err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a token file that is a link must be refused, saying so: %+v %v %v", tok, ok, err)
	}
	if err := s.Put("https://mcp.example/", StoredToken{AccessToken: "mine"}); err == nil {
		t.Error("Put over a token file that is a link must fail")
	}
	victimUnchanged(t, planted, content)
}
