package mcp

import (
	"fmt"
	"strings"
)

// Expand replaces ${VAR}, ${VAR:-default} and VS Code's ${env:VAR} in s.
// An unset variable without a default is an error naming it, and so is
// VS Code's ${input:ID} (a value VS Code asks for); "$" not followed by "{" is kept as is, and
// "$${" writes a literal "${".
func Expand(s string, getenv func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			b.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ in %q: close it with }", s)
		}
		body := s[i+2 : i+end]
		if id, ok := strings.CutPrefix(body, "input:"); ok {
			return "", fmt.Errorf("${input:%s} in %q needs a value: VS Code asks the person for it, howl does not: write ${VAR} and export VAR, or the value itself", id, s)
		}
		// VS Code writes ${env:VAR}: the same variable.
		name, def, hasDef := strings.Cut(strings.TrimPrefix(body, "env:"), ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("${%s} in %q is not a variable name: use letters, digits and _ (e.g. ${API_KEY})", body, s)
		}
		v, ok := getenv(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set (used as ${%s}): export it, or write ${%s:-default}", name, name, name)
		}
		i += end + 1
	}
	return b.String(), nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// expandServer expands every string of an entry in place.
func expandServer(sc *ServerConfig, getenv func(string) (string, bool)) error {
	var firstErr error
	exp := func(field, s string) string {
		out, err := Expand(s, getenv)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", field, err)
			}
			return s
		}
		return out
	}
	sc.Command = exp("command", sc.Command)
	sc.Cwd = exp("cwd", sc.Cwd)
	sc.URL = exp("url", sc.URL)
	for i, d := range sc.Roots {
		sc.Roots[i] = exp(fmt.Sprintf("roots[%d]", i), d)
	}
	for i, a := range sc.Args {
		sc.Args[i] = exp(fmt.Sprintf("args[%d]", i), a)
	}
	for k, v := range sc.Env {
		sc.Env[k] = exp("env."+k, v)
	}
	for k, v := range sc.Headers {
		sc.Headers[k] = exp("headers."+k, v)
	}
	if sc.OAuth != nil {
		sc.OAuth.ClientID = exp("oauth.clientId", sc.OAuth.ClientID)
		sc.OAuth.ClientSecret = exp("oauth.clientSecret", sc.OAuth.ClientSecret)
		sc.OAuth.PrivateKeyPEM = exp("oauth.privateKeyPem", sc.OAuth.PrivateKeyPEM)
		sc.OAuth.IDToken = exp("oauth.idToken", sc.OAuth.IDToken)
		sc.OAuth.Assertion = exp("oauth.assertion", sc.OAuth.Assertion)
		sc.OAuth.AssertionFile = exp("oauth.assertionFile", sc.OAuth.AssertionFile)
	}
	return firstErr
}
