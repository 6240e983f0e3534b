package mcp

import (
	"net/url"
	"strings"
)

// ShownURL is raw, a remote server's url, as howl shows it in a status, an
// error or a verb's output: without its userinfo and fragment, and with its query values
// cut (?key=…), since a ${VAR} may have filled a secret in there. A query
// part with no "=" may be the secret itself: it shows as "…".
func ShownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a url that does not parse)"
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=…"
			} else {
				parts[i] = "…"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// urlHider replaces raw, a remote server's url, with ShownURL(raw) in
// text that mcp-go and net/http wrote: they quote the url whole (net/http
// with its password as "***").
type urlHider struct {
	forms []string // how raw may be written
	shown string
}

func hiderOf(raw string) urlHider {
	h := urlHider{shown: ShownURL(raw), forms: []string{raw}}
	if u, err := url.Parse(raw); err == nil {
		h.forms = append(h.forms, u.String())
		if _, ok := u.User.Password(); ok { // as net/http's url.Error writes it
			h.forms = append(h.forms, strings.Replace(u.String(), u.User.String()+"@", u.User.Username()+":***@", 1))
		}
	}
	return h
}

func (h urlHider) text(s string) string {
	for _, f := range h.forms {
		if f != h.shown && f != "" {
			s = strings.ReplaceAll(s, f, h.shown)
		}
	}
	return s
}

// err is e with the url hidden in its text, still wrapping e (errors.Is
// and As see through it); e itself when its text does not quote the url.
func (h urlHider) err(e error) error {
	if e == nil {
		return nil
	}
	if msg := e.Error(); h.text(msg) != msg {
		return &hiddenURL{msg: h.text(msg), err: e}
	}
	return e
}

type hiddenURL struct {
	msg string
	err error
}

func (e *hiddenURL) Error() string { return e.msg }
func (e *hiddenURL) Unwrap() error { return e.err }
