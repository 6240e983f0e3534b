package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Chromium finds Debian's chromium for a browser test, or skips the test
// loudly (what is not tried, and how to install it).
func Chromium(t testing.TB, what string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "SKIPPED LOUDLY: no chromium on PATH, so " + what + " was not tried in a real browser (apt-get install chromium)"
	fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
	t.Skip(msg)
	return ""
}

// OpenInChromium keeps url open in a headless browser until the test
// ends, with the flags this machine's closed network needs.
func OpenInChromium(t testing.TB, browser, url string) {
	t.Helper()
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+chromiumProfile(t), url)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

// chromiumProfile is a fresh profile directory for one browser. Not
// t.TempDir: Chromium's helper processes can still be writing to it when
// the browser is killed, and TempDir's cleanup then fails the test; this
// one is removed best-effort once they had time to end.
func chromiumProfile(t testing.TB) string {
	dir, err := os.MkdirTemp("", "howl-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}
