package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// origin is u's scheme, host and port, lowercased, the port spelled out
// ("https://example.com:443"): two URLs with the same origin reach the
// same server the same way. It is "" for a URL with no scheme or host.
func origin(u *url.URL) string {
	if u == nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// originOf is origin of raw, "" when it does not parse.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return origin(u)
}

// serverRedirects is the CheckRedirect of the client that carries a
// remote server's MCP requests, whose configured url is server: a
// redirect stays on server's origin. Go strips only Authorization from a
// redirect to another host, not the entry's headers (an X-Api-Key), and
// howl's authorizer signs each hop anew; a redirect to plain http would
// send both in clear.
func serverRedirects(server string) func(*http.Request, []*http.Request) error {
	want := originOf(server)
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if want == "" || origin(req.URL) != want {
			return &offOrigin{fmt.Sprintf("%s redirected to %s, another origin: not followed, as it would take the entry's headers and token there; if the server moved, set \"url\" to the new address",
				ShownURL(via[len(via)-1].URL.String()), ShownURL(req.URL.String()))}
		}
		return nil
	}
}

// originGuard refuses a request that leaves the configured url's origin
// before it is sent: the legacy SSE transport POSTs wherever the server's
// endpoint event says, checking only its host, so an https server could
// name plain http.
type originGuard struct {
	base   http.RoundTripper
	server string // the configured url
	want   string // its origin
}

func (g originGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.want == "" || origin(req.URL) != g.want {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &offOrigin{fmt.Sprintf("howl did not send to %s: it is not on the origin (scheme, host, port) of url %s, and would take the entry's headers and token there; a legacy SSE server's endpoint event must name a URL on that origin",
			ShownURL(req.URL.String()), ShownURL(g.server))}
	}
	return g.base.RoundTrip(req)
}

// offOrigin is why a request to a remote server went nowhere: it would
// have left the configured url's origin.
type offOrigin struct{ msg string }

func (e *offOrigin) Error() string { return e.msg }

// plainOrigin is err's offOrigin, if it has one: what mcp-go and net/http
// wrap it in says nothing more, and would cut its fix from a status line.
func plainOrigin(err error) error {
	if o := (*offOrigin)(nil); errors.As(err, &o) {
		return o
	}
	return err
}
