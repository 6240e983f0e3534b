package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// browserRecordEnv names the file a re-executed test binary, standing
// in for a browser, writes its arguments to.
const browserRecordEnv = "HOWL_TEST_BROWSER_RECORD"

// fakeBrowser makes $BROWSER this test binary, which records its
// arguments (the count, then one per line) in the returned file instead of
// opening anything; TestMain sees browserRecordEnv and calls recordBrowser.
func fakeBrowser(t *testing.T) (record string) {
	t.Helper()
	record = filepath.Join(t.TempDir(), "argv")
	t.Setenv(browserRecordEnv, record)
	t.Setenv("BROWSER", os.Args[0])
	return record
}

// recordBrowser is the fake browser: it writes its arguments to record.
func recordBrowser(record string) int {
	lines := append([]string{strconv.Itoa(len(os.Args) - 1)}, os.Args[1:]...)
	if err := os.WriteFile(record, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return 1
	}
	return 0
}

// hostileBrowserURLs are values a server could put where howl expects a
// web page, each with the words its refusal must use.
var hostileBrowserURLs = []struct{ url, why string }{
	{"file:///etc/passwd?client_id=x", `scheme is "file"`},
	{"--renderer-cmd-prefix=/tmp/pwn", `starts with "-"`},
	{"-https://example.com/authorize", `starts with "-"`},
	{"javascript:alert(1)", `scheme is "javascript"`},
	{"data:text/html,<script>alert(1)</script>", `scheme is "data"`},
	{"ftp://example.com/x", `scheme is "ftp"`},
	{"http://evil.example/authorize", `plain http to "evil.example"`},
	{"http://127.0.0.1.evil.example/authorize", `plain http to "127.0.0.1.evil.example"`},
	{"https:evil.example/authorize", "names no host"},
	{"https:///authorize", "names no host"},
	{"https://accounts.example@evil.example/authorize", `user name before the host ("accounts.example"@)`},
	{"https://example.com/a b", "space, control"},
	{"https://example.com/\x1b]52;c;aGk=\x07", "space, control"},
	// What the dialogs strip before drawing, so the URL shown would not
	// be the one opened: C1, bidi overrides, zero-width, invalid UTF-8.
	{"https://example.com/\u009b2J", "bidirectional or invisible"},
	{"https://example.com/\u202egnp.exe", "bidirectional or invisible"},
	{"https://exa\u200bmple.com/", "bidirectional or invisible"},
	{"https://example.com/\xff", "bidirectional or invisible"},
	{"", "empty"},
}

func TestCheckBrowserURLRefusesEverythingButHTTPSAndLoopbackHTTP(t *testing.T) {
	for _, good := range []string{
		"https://example.com/authorize?client_id=a&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback",
		"HTTPS://Example.COM/x",
		"http://127.0.0.1:8080/as/authorize",
		"http://127.1.2.3/x",
		"http://localhost:3000/login",
		"http://[::1]:9/x",
	} {
		if err := CheckBrowserURL(good); err != nil {
			t.Errorf("CheckBrowserURL(%q) = %v, want nil", good, err)
		}
	}
	for _, h := range hostileBrowserURLs {
		err := CheckBrowserURL(h.url)
		var be *BrowserURLError
		if !errors.As(err, &be) || be.URL != h.url || !strings.Contains(err.Error(), h.why) {
			t.Errorf("CheckBrowserURL(%q) = %v, want a refusal naming the value and %q", h.url, err, h.why)
		}
	}
}

// TestOpenBrowserNeverRunsTheBrowserOnAHostileURL: whoever calls the
// opener (a login, a URL elicitation), a refused value reaches no command.
func TestOpenBrowserNeverRunsTheBrowserOnAHostileURL(t *testing.T) {
	record := fakeBrowser(t)
	for _, h := range hostileBrowserURLs {
		if err := OpenBrowser(context.Background(), h.url); err == nil || !strings.Contains(err.Error(), h.why) {
			t.Errorf("OpenBrowser(%q) = %v, want a refusal saying %q", h.url, err, h.why)
		}
	}
	if data, err := os.ReadFile(record); err == nil {
		t.Fatalf("the browser ran on a refused URL with arguments %q", data)
	}
}

// TestLoginNeverHandsAHostileAuthorizationEndpointToTheBrowser: an
// authorization server's metadata naming a file, an option for the browser
// command or a plain-http page elsewhere ends the login with the value and
// the reason, and the browser never starts.
func TestLoginNeverHandsAHostileAuthorizationEndpointToTheBrowser(t *testing.T) {
	record := fakeBrowser(t)
	for _, h := range hostileBrowserURLs[:len(hostileBrowserURLs)-1] {
		f := newAuthFixture(t)
		f.authEndpoint = h.url
		var notices []string
		rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{
			Store: NewTokenStore(filepath.Join(t.TempDir(), "tokens.json")), Login: true,
			Notice: func(_, msg string) { notices = append(notices, msg) },
		}})
		st := startAndWait(t, rt)
		rt.Close()
		if st.State == StateReady || !strings.Contains(st.Reason, "authorization_endpoint from "+f.srv.URL+"/as is refused") || !strings.Contains(st.Reason, h.why) {
			t.Errorf("endpoint %q: status %s %q, want a refusal saying %q", h.url, st.State, st.Reason, h.why)
		}
		if len(notices) > 0 {
			t.Errorf("endpoint %q: the person was told to open it: %q", h.url, notices)
		}
	}
	if data, err := os.ReadFile(record); err == nil {
		t.Fatalf("the browser ran on a hostile authorization endpoint with arguments %q", data)
	}
}

// TestLoginHandsTheBrowserExactlyOneURLArgument: a good endpoint reaches
// $BROWSER as one argument after the command's own, and the login the
// page completes makes the server ready.
func TestLoginHandsTheBrowserExactlyOneURLArgument(t *testing.T) {
	record := fakeBrowser(t)
	t.Setenv("BROWSER", os.Getenv("BROWSER")+" --new-window")
	f := newAuthFixture(t)
	rt := NewRuntime(f.config(), RuntimeOptions{CacheDir: t.TempDir(), OAuth: OAuthOptions{
		Store: NewTokenStore(filepath.Join(t.TempDir(), "tokens.json")), Login: true,
	}})
	defer rt.Close()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	var argv []string
	deadline := time.Now().Add(30 * time.Second)
	for len(argv) == 0 || argv[0] != "2" || len(argv) != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the browser was not started with two arguments within 30s: %q", argv)
		}
		time.Sleep(10 * time.Millisecond)
		if data, err := os.ReadFile(record); err == nil {
			argv = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
	}
	if argv[1] != "--new-window" || !strings.HasPrefix(argv[2], f.srv.URL+"/as/authorize?") {
		t.Fatalf("browser argv = %q, want [--new-window <the authorization URL>]", argv[1:])
	}
	// The person's browser follows the page to howl's callback.
	if err := followRedirects(context.Background(), argv[2]); err != nil {
		t.Fatal(err)
	}
	if st := waitAuthed(t, rt); st.State != StateReady {
		t.Fatalf("after the login: %s %q", st.State, st.Reason)
	}
}
