package mcp

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/howl-mcp/howl/render"
)

// BrowserURLError is a URL howl refuses to hand to a browser: what it was
// and why.
type BrowserURLError struct {
	URL    string
	Reason string
}

// maxShownURL bounds how much of a refused URL an error quotes, so the
// reason after it survives a one-line status.
const maxShownURL = 80

func (e *BrowserURLError) Error() string {
	return fmt.Sprintf("howl will not open %q in a browser: %s", render.Ellipsize(e.URL, maxShownURL), e.Reason)
}

// browserSchemes says which URLs howl opens, for every refusal's text.
const browserSchemes = "howl opens only https URLs, and http ones on this machine (localhost, 127.0.0.0/8, ::1)"

// CheckBrowserURL is the one test every URL passes before howl hands it to
// a browser, whoever supplied it (an authorization server's metadata, a
// server's URL elicitation): https to a named host, or http to this
// machine's loopback; never a value a browser command could read as an
// option (a leading "-"), never one with spaces or control characters,
// never one with a user name before the host (it disguises the host).
// The error is a *BrowserURLError naming the value and the reason.
func CheckBrowserURL(u string) error {
	refuse := func(format string, a ...any) error {
		return &BrowserURLError{URL: u, Reason: fmt.Sprintf(format, a...)}
	}
	if u == "" {
		return refuse("it is empty")
	}
	if strings.HasPrefix(u, "-") {
		return refuse("it starts with \"-\", so the browser command would read it as an option; %s", browserSchemes)
	}
	if i := strings.IndexFunc(u, unshowable); i >= 0 {
		return refuse("it contains a space, control, bidirectional or invisible character (byte %d), which a dialog cannot show as it would be opened: a URL must be percent-encoded", i)
	}
	p, err := url.Parse(u)
	if err != nil {
		return refuse("it is not a valid URL (%v)", err)
	}
	switch strings.ToLower(p.Scheme) {
	case "https":
	case "http":
		if !isLoopbackHost(p.Hostname()) {
			return refuse("it is plain http to %q, which is not this machine; %s", p.Hostname(), browserSchemes)
		}
	default:
		return refuse("its scheme is %q; %s", p.Scheme, browserSchemes)
	}
	if p.Host == "" || p.Hostname() == "" {
		return refuse("it names no host")
	}
	if p.User != nil {
		return refuse("it carries a user name before the host (%q@), which can disguise the host the page is really on", p.User.Username())
	}
	return nil
}

// unshowable reports whether r cannot stand in a URL shown to the person
// as the one opened: a space or C0 control, DEL, a C1 control, a
// bidirectional control (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C),
// a zero-width character or the BOM, and invalid UTF-8. The dialogs strip
// these before drawing, so the URL shown would not be the URL opened.
func unshowable(r rune) bool {
	switch {
	case r <= ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return true
	}
	return false
}

// isLoopbackHost reports whether host is this machine: localhost, an
// address in 127.0.0.0/8, or ::1.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// OpenBrowser opens u with $BROWSER (a command line; the URL is its one
// last argument, after the command's own options), else the platform's
// opener (systemOpener: open on macOS, the default handler through
// rundll32 on Windows, xdg-open elsewhere), and waits for it to exit. A
// URL CheckBrowserURL refuses is never handed to any command.
func OpenBrowser(ctx context.Context, u string) error {
	if err := CheckBrowserURL(u); err != nil {
		return err
	}
	cmdline := strings.Fields(os.Getenv("BROWSER"))
	if len(cmdline) == 0 {
		cmdline = systemOpener
	}
	cmd := exec.CommandContext(ctx, cmdline[0], append(cmdline[1:], u)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("opening the browser with %q: %v %s: open the URL yourself", strings.Join(cmdline, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
