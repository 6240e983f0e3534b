package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// protectedServer is an MCP server behind bearer auth with its own
// authorization server (dynamic registration, PKCE, redirect with a code).
func protectedServer(t *testing.T) *httptest.Server {
	t.Helper()
	ms := server.NewMCPServer("protected", "1.0.0", server.WithToolCapabilities(false))
	ms.AddTool(mcpgo.NewTool("whoami"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("an authorized caller"), nil
	})
	h := server.NewStreamableHTTPServer(ms, server.WithStateLess(true))
	var mu sync.Mutex
	valid := map[string]bool{}
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		ok := valid[tok]
		mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"registration_endpoint":%q}`, srv.URL, srv.URL+"/authorize", srv.URL+"/token", srv.URL+"/register")
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"client_id":"howl-test"}`)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		to.RawQuery = url.Values{"code": {"c"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		valid["granted"] = true
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "granted", "token_type": "Bearer", "expires_in": 3600})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestAuthLogsInThroughBrowserAndLaterVerbsUseTheToken(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("SKIPPED: curl plays the browser here and is not installed")
	}
	dir := isolate(t)
	t.Setenv("HOWL_CONFIG_DIR", filepath.Join(dir, "howl-config"))
	t.Setenv("BROWSER", "curl -sfL -o /dev/null")
	srv := protectedServer(t)
	u := srv.URL + "/mcp"

	_, errOut, code := howl(t, "--url", u, "call", "whoami")
	if code == exitOK || !strings.Contains(errOut, "needs authorization: run howl auth") {
		t.Fatalf("before login: exit %d, stderr %q; want a failure naming howl auth", code, errOut)
	}
	out, errOut, code := howl(t, "--url", u, "auth")
	if code != exitOK || !strings.Contains(out, "logged in to "+u) {
		t.Fatalf("auth: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	fi, err := os.Stat(filepath.Join(dir, "howl-config", "tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	out, errOut, code = howl(t, "--url", u, "call", "whoami")
	if code != exitOK || !strings.Contains(out, "an authorized caller") {
		t.Fatalf("after login: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, _, code = howl(t, "--url", u, "auth", "--logout")
	if code != exitOK || !strings.Contains(out, "logged out") {
		t.Fatalf("logout: exit %d %s", code, out)
	}
	if _, _, code = howl(t, "--url", u, "call", "whoami"); code == exitOK {
		t.Fatalf("after logout: exit %d, want a failure", code)
	}
}

func TestLoginFlagRejectsUnknownValues(t *testing.T) {
	isolate(t)
	_, errOut, code := howl(t, "--login", "sometimes", "servers")
	if code != exitUsage || !strings.Contains(errOut, "use auto") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestAuthRefusesALocalServer(t *testing.T) {
	isolate(t)
	_, errOut, code := howl(t, "auth", "demo")
	if code != exitUsage || !strings.Contains(errOut, "only url servers log in") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// howl auth prints a server's url as shown everywhere else: a secret a
// ${VAR} filled into its query is not printed.
func TestAuthDoesNotPrintASecretFilledIntoTheURL(t *testing.T) {
	home := isolate(t)
	t.Setenv("HOWL_TEST_URL_SECRET", "s3cr3t-in-query")
	os.MkdirAll(filepath.Dir(userConfig(home)), 0o700)
	os.WriteFile(userConfig(home), []byte(`{"mcpServers":{"r":{"url":"http://127.0.0.1:1/mcp?key=${HOWL_TEST_URL_SECRET}"}}}`), 0o600)
	out, errOut, code := howl(t, "auth", "r", "--logout", "--json")
	if code != 0 || strings.Contains(out+errOut, "s3cr3t-in-query") || !strings.Contains(out, "key=…") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}
