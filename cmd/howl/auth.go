package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
)

// loginFlag is --login: auto or never.
type loginFlag struct{ v *string }

func (f loginFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f loginFlag) Set(s string) error {
	switch s {
	case "auto", "never":
		*f.v = s
		return nil
	}
	return fmt.Errorf("--login %q: use auto (log in through $BROWSER when a server asks) or never", s)
}

func (f loginFlag) Type() string { return "auto|never" }

// oauthOptions is how headless verbs log in: through $BROWSER, with the URL
// printed on stderr, only when --login=auto (howl auth sets it).
func oauthOptions(g *globalFlags) mcp.OAuthOptions {
	return mcp.OAuthOptions{
		Login:             g.login == "auto",
		AcceptMovedIssuer: g.relogin,
		Notice: func(server, msg string) {
			fmt.Fprintf(os.Stderr, "howl: %s: %s\n", clean(server), clean(msg))
		},
	}
}

// authResult is what `howl auth --json` prints.
type authResult struct {
	Server      string    `json:"server"`
	URL         string    `json:"url"`
	State       mcp.State `json:"state"`
	LoggedIn    bool      `json:"logged_in"`
	Scope       string    `json:"scope,omitempty"`
	TokenFile   string    `json:"token_file,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	LoggedOut   bool      `json:"logged_out,omitempty"`
	Refreshable bool      `json:"refreshable,omitempty"`
}

func newAuthCmd(g *globalFlags, stdout, _ io.Writer) *cobra.Command {
	var asJSON, logout, force bool
	cmd := &cobra.Command{
		Use:   "auth SERVER [--logout] [--force]",
		Short: "Log in to a remote server with OAuth (opens $BROWSER)",
		Long: `Log in to a remote (url) server that asks for OAuth authorization.

howl discovers the server's authorization server (or logs in at the entry's
"oauth": {"authorizationServer"}), registers itself (or uses the entry's
"oauth": {"clientId", "clientSecret", "scopes", "redirectPort",
"clientMetadataUrl", "grant", "privateKeyPem"}), opens the authorization URL
with $BROWSER (else xdg-open; the URL is also printed on stderr) and waits
for the redirect on a 127.0.0.1 callback. The token is stored with mode 0600
in $HOWL_CONFIG_DIR/tokens.json (else <user config dir>/howl/tokens.json) and
refreshed when it expires. Other verbs then use it; with --login=auto they
log in themselves when a server asks. A server that now names another
authorization server than its token came from gets the entry's client
secret, key or assertion there only through howl auth.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := serverArgs(g, args, 1, 1)
			if err != nil {
				return err
			}
			name := args[0]
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			if err := checkNames(cfg, name); err != nil {
				return err
			}
			sc, _ := cfg.Server(name)
			if sc.Transport == mcp.TransportStdio {
				return usagef("server %s is a local (stdio) server: only url servers log in", name)
			}
			store := mcp.DefaultTokenStore()
			// The url as shown: a ${VAR} may have filled a secret into it.
			res := authResult{Server: name, URL: mcp.ShownURL(sc.URL), TokenFile: store.Path()}
			if logout || force {
				if err := store.Delete(sc.URL); err != nil {
					return err
				}
				if logout {
					res.LoggedOut, res.State = true, mcp.StateStopped
					return printAuth(stdout, asJSON, res)
				}
			}
			lg := *g
			lg.login, lg.relogin = "auto", true
			s, err := start(cmd.Context(), &lg, cfg, name)
			if err != nil {
				return err
			}
			defer s.close()
			st, _ := s.rt.ServerStatus(name)
			res.State, res.Reason = st.State, st.Reason
			if t, ok, _ := s.rt.StoredLogin(name); ok {
				res.LoggedIn, res.Scope, res.Refreshable = true, t.Scope, t.RefreshToken != ""
			}
			if err := printAuth(stdout, asJSON, res); err != nil {
				return err
			}
			if st.State != mcp.StateReady {
				return fmt.Errorf("server %s is %s: %s", name, st.State, clean(st.Reason))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&logout, "logout", false, "forget the stored token instead of logging in")
	cmd.Flags().BoolVar(&force, "force", false, "forget the stored token first, then log in again")
	return cmd
}

func printAuth(w io.Writer, asJSON bool, r authResult) error {
	if asJSON {
		return writeJSON(w, r)
	}
	var b strings.Builder
	switch {
	case r.LoggedOut:
		fmt.Fprintf(&b, "%s: logged out (token removed from %s)\n", r.Server, r.TokenFile)
	case r.State == mcp.StateReady && r.LoggedIn:
		fmt.Fprintf(&b, "%s: logged in to %s", r.Server, clean(r.URL))
		if r.Scope != "" {
			fmt.Fprintf(&b, " (scope %s)", clean(r.Scope))
		}
		fmt.Fprintf(&b, "; token in %s\n", r.TokenFile)
	case r.State == mcp.StateReady:
		fmt.Fprintf(&b, "%s: ready without a login (the server did not ask for one)\n", r.Server)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
