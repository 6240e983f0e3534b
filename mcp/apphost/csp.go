package apphost

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/howl-mcp/howl/mcp"
)

// hostPageCSP is the host page's own policy: its script and its calls to
// howl, the app's frame from the same origin, nothing else; and no page
// may frame it.
const hostPageCSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; " +
	"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// viewSandbox is the sandbox the app's document runs in, set both as the
// iframe's attribute and in its CSP (so the document is sandboxed even
// if opened on its own): scripts and forms, never the host's origin, so
// the app cannot reach howl's page, its token or its endpoints.
const viewSandbox = "allow-scripts allow-forms"

// originPattern is what howl accepts as one origin of an app's CSP:
// scheme, host (an optional leading "*." wildcard) and port; nothing a
// policy could read as another source or directive.
var originPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(https|http|wss|ws)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$`)
})

// viewCSP turns an app's declared CSP into the header its document is
// served with. What it does not declare, it does not get: no network,
// no nested frames, no <base> (the extension's secure default). Inline
// script and style are allowed (an app is one HTML document).
func viewCSP(c mcp.AppCSP) (string, error) {
	list := func(field string, origins []string, none string) (string, error) {
		for _, o := range origins {
			if !originPattern().MatchString(o) {
				return "", fmt.Errorf("its _meta.ui.csp.%s holds %q, which is not an origin like https://api.example.com or https://*.example.com: howl does not open it", field, o)
			}
		}
		if len(origins) == 0 {
			return none, nil
		}
		return strings.Join(origins, " "), nil
	}
	resources, err := list("resourceDomains", c.ResourceDomains, "")
	if err != nil {
		return "", err
	}
	connect, err := list("connectDomains", c.ConnectDomains, "'none'")
	if err != nil {
		return "", err
	}
	frames, err := list("frameDomains", c.FrameDomains, "'none'")
	if err != nil {
		return "", err
	}
	base, err := list("baseUriDomains", c.BaseURIDomains, "'none'")
	if err != nil {
		return "", err
	}
	with := func(fixed string) string { return strings.TrimSpace(fixed + " " + resources) }
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + with("'unsafe-inline'"),
		"style-src " + with("'unsafe-inline'"),
		"img-src " + with("data: blob:"),
		"font-src " + with("data:"),
		"media-src " + with("data: blob:"),
		"connect-src " + connect,
		"frame-src " + frames,
		"base-uri " + base,
		"form-action 'none'",
		"frame-ancestors 'self'",
		"sandbox " + viewSandbox,
	}, "; "), nil
}

// appFeatures maps the extension's permissions to Permissions Policy
// features, in a fixed order.
var appFeatures = []struct {
	feature string
	asked   func(mcp.AppPermissions) bool
}{
	{"camera", func(p mcp.AppPermissions) bool { return p.Camera != nil }},
	{"microphone", func(p mcp.AppPermissions) bool { return p.Microphone != nil }},
	{"geolocation", func(p mcp.AppPermissions) bool { return p.Geolocation != nil }},
	{"clipboard-write", func(p mcp.AppPermissions) bool { return p.ClipboardWrite != nil }},
}

// viewPermissions is what howl grants an app of the browser features the
// extension names: exactly those its resource declares (the browser may
// still ask the person), as the iframe's allow attribute; the view's
// Permissions-Policy header denies the others, so an undeclared one is
// never granted.
func viewPermissions(p mcp.AppPermissions) (allow, policy string) {
	var allowed, denied []string
	for _, f := range appFeatures {
		if f.asked(p) {
			allowed = append(allowed, f.feature)
		} else {
			denied = append(denied, f.feature+"=()")
		}
	}
	return strings.Join(allowed, "; "), strings.Join(denied, ", ")
}
