package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Transport names a way of reaching a server.
type Transport string

// The transports howl speaks.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
	TransportSSE   Transport = "sse"
)

// Era selects how howl opens a connection: the 2026-07-28 stateless core
// (a server/discover probe), the initialize handshake of 2025-11-25 and
// earlier, or auto (what this server answered fastest last time).
type Era string

// The eras a server entry may pin.
const (
	EraAuto   Era = "auto"
	EraModern Era = "modern"
	EraLegacy Era = "legacy"
)

// DefaultStartTimeout bounds how long one server may take to become ready.
const DefaultStartTimeout = 30 * time.Second

// ServerConfig is one entry of the mcpServers map, after ${VAR} expansion.
type ServerConfig struct {
	Name      string            `json:"name"`
	Transport Transport         `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
	Era       Era               `json:"protocol,omitempty"`
	// StartTimeout bounds the connect and handshake; zero means DefaultStartTimeout.
	StartTimeout time.Duration `json:"start_timeout,omitempty"`
	// ShutdownGrace is how long a stdio child gets between its stdin closing
	// and SIGTERM; zero means the runtime's (DefaultShutdownGrace).
	ShutdownGrace time.Duration `json:"shutdown_grace,omitempty"`
	// CallTimeout is the entry's "timeout": how long a request may go
	// without an answer or progress (zero: the runtime's default).
	CallTimeout time.Duration `json:"timeout,omitempty"`
	// Sampling lets this server ask howl to sample (RuntimeOptions.Sample,
	// with the person's approval); off unless "sampling": true.
	Sampling bool `json:"sampling,omitempty"`
	// OAuth holds the entry's "oauth" settings (url entries only).
	OAuth *OAuthSettings `json:"oauth,omitempty"`
	// Problem is set when the entry parsed but cannot be started (an unset
	// ${VAR}, say). The runtime reports it as the server's failure reason;
	// the other servers are unaffected.
	Problem string `json:"problem,omitempty"`
}

// Config is the set of servers howl talks to and where they came from.
type Config struct {
	// Source is the file the servers came from, or "" for the embedded demo.
	Source string
	// Servers, sorted by name.
	Servers []ServerConfig
	// Extra holds the file's other top-level keys (howl's "model" settings,
	// say), for the packages that own them to parse.
	Extra map[string]json.RawMessage
}

// Enabled returns the servers not marked disabled.
func (c *Config) Enabled() []ServerConfig {
	var out []ServerConfig
	for _, s := range c.Servers {
		if !s.Disabled {
			out = append(out, s)
		}
	}
	return out
}

// Server returns the named entry.
func (c *Config) Server(name string) (ServerConfig, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return ServerConfig{}, false
}

// Names lists every configured server name, sorted.
func (c *Config) Names() []string {
	out := make([]string, 0, len(c.Servers))
	for _, s := range c.Servers {
		out = append(out, s.Name)
	}
	return out
}

// LoadOptions says where to look for a config file.
type LoadOptions struct {
	// Path is --config; it wins over everything and must exist.
	Path string
	// Getenv reads the environment (os.LookupEnv when nil). It serves both
	// $HOWL_CONFIG and ${VAR} expansion.
	Getenv func(string) (string, bool)
	// WorkDir is where ./.mcp.json is looked for ("." when empty).
	WorkDir string
	// UserConfigDir is the parent of howl/mcp.json (os.UserConfigDir when empty).
	UserConfigDir string
	// Demo is the entry used when no file is found anywhere.
	Demo ServerConfig
}

// ConfigError is a config file that cannot be used. Its message names the
// file, the position, the field and the fix.
type ConfigError struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
	Fix    string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "%s: ", e.Field)
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(": ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// FindConfig returns the config file that applies, or "" when none exists:
// --config, then $HOWL_CONFIG, then ./.mcp.json, then <user config dir>/howl/mcp.json.
func FindConfig(opts LoadOptions) (string, error) {
	getenv := opts.getenv()
	if opts.Path != "" {
		if _, err := os.Stat(opts.Path); err != nil {
			return "", fmt.Errorf("--config %s: %w: pass an existing file, or drop --config to use the default lookup", opts.Path, err)
		}
		return opts.Path, nil
	}
	if p, ok := getenv("HOWL_CONFIG"); ok && p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("HOWL_CONFIG=%s: %w: point it at an existing file or unset it", p, err)
		}
		return p, nil
	}
	wd := opts.WorkDir
	if wd == "" {
		wd = "."
	}
	candidates := []string{filepath.Join(wd, ".mcp.json")}
	ucd := opts.UserConfigDir
	if ucd == "" {
		ucd, _ = os.UserConfigDir()
	}
	if ucd != "" {
		candidates = append(candidates, filepath.Join(ucd, "howl", "mcp.json"))
	}
	for _, c := range candidates {
		st, err := os.Stat(c)
		if err == nil && !st.IsDir() {
			return c, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", c, err)
		}
	}
	return "", nil
}

// LoadConfig finds and parses the config. No file anywhere means the
// embedded demo server (opts.Demo).
func LoadConfig(opts LoadOptions) (*Config, error) {
	path, err := FindConfig(opts)
	if err != nil {
		return nil, err
	}
	if path == "" {
		demo := opts.Demo
		if demo.Transport == "" {
			demo.Transport = TransportStdio
		}
		return &Config{Servers: []ServerConfig{demo}}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", path, err)
	}
	return ParseConfig(path, data, opts.getenv())
}

func (o LoadOptions) getenv() func(string) (string, bool) {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.LookupEnv
}

// rawServer mirrors one mcpServers entry as written, before expansion.
type rawServer struct {
	Command       *string           `json:"command"`
	Args          []string          `json:"args"`
	Env           map[string]string `json:"env"`
	Cwd           *string           `json:"cwd"`
	URL           *string           `json:"url"`
	Type          *string           `json:"type"`
	Headers       map[string]string `json:"headers"`
	Disabled      bool              `json:"disabled"`
	Protocol      *string           `json:"protocol"`
	StartTimeout  *string           `json:"startTimeout"`
	ShutdownGrace *string           `json:"shutdownGrace"`
	OAuth         *OAuthSettings    `json:"oauth"`
	Sampling      bool              `json:"sampling"`
	// Accepted and ignored: other clients write these.
	Description any `json:"description"`
	AutoApprove any `json:"autoApprove"`
	Timeout     any `json:"timeout"`
}

// knownServerFields lists the keys an entry may carry, for "did you mean".
var knownServerFields = []string{"command", "args", "env", "cwd", "url", "type", "headers", "disabled", "protocol", "startTimeout", "shutdownGrace", "oauth", "sampling", "description", "autoApprove", "timeout"}

// ParseConfig parses a Claude-Desktop-shaped file: {"mcpServers": {name: entry}}.
// Unknown top-level keys are ignored (other clients share the file); unknown
// keys inside a server entry are errors, because a typo there silently drops
// a setting.
func ParseConfig(file string, data []byte, getenv func(string) (string, bool)) (*Config, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(file, data, "", err)
	}
	rawServers, ok := top["mcpServers"]
	if !ok {
		return nil, &ConfigError{File: file, Field: "mcpServers", Msg: "missing", Fix: `write {"mcpServers": {"name": {"command": "...", "args": [...]}}}`}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil {
		return nil, jsonError(file, data, "mcpServers", err)
	}
	cfg := &Config{Source: file, Extra: map[string]json.RawMessage{}}
	for k, v := range top {
		if k != "mcpServers" {
			cfg.Extra[k] = v
		}
	}
	for name, raw := range entries {
		sc, err := parseServer(file, data, name, raw, getenv)
		if err != nil {
			return nil, err
		}
		cfg.Servers = append(cfg.Servers, sc)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

func parseServer(file string, data []byte, name string, raw json.RawMessage, getenv func(string) (string, bool)) (ServerConfig, error) {
	field := "mcpServers." + name
	if strings.TrimSpace(name) == "" {
		return ServerConfig{}, &ConfigError{File: file, Field: "mcpServers", Msg: "a server has an empty name", Fix: "give every server a non-empty key"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var rs rawServer
	if err := dec.Decode(&rs); err != nil {
		ce := jsonError(file, data, field, err)
		if e, ok := ce.(*ConfigError); ok {
			if k, found := strings.CutPrefix(err.Error(), "json: unknown field "); found {
				k = strings.Trim(k, `"`)
				e.Field = field + "." + k
				e.Msg = "unknown field"
				e.Fix = "the known fields are " + strings.Join(knownServerFields, ", ")
				if s := closest(k, knownServerFields); s != "" {
					e.Fix = fmt.Sprintf("did you mean %q? (known: %s)", s, strings.Join(knownServerFields, ", "))
				}
				e.Line, e.Column = position(data, locate(data, raw, `"`+k+`"`))
			}
		}
		return ServerConfig{}, ce
	}
	at := func(key string) (int, int) { return position(data, locate(data, raw, `"`+key+`"`)) }
	bad := func(key, msg, fix string) error {
		l, c := at(key)
		return &ConfigError{File: file, Line: l, Column: c, Field: field + "." + key, Msg: msg, Fix: fix}
	}
	sc := ServerConfig{Name: name, Args: rs.Args, Env: rs.Env, Headers: rs.Headers, Disabled: rs.Disabled, Sampling: rs.Sampling}
	switch {
	case rs.Command != nil && rs.URL != nil:
		return sc, bad("url", "both command and url are set", "keep command (a local stdio server) or url (a remote server), not both")
	case rs.Command != nil:
		if strings.TrimSpace(*rs.Command) == "" {
			return sc, bad("command", "is empty", "name the program to run, e.g. \"npx\" or \"/usr/local/bin/server\"")
		}
		sc.Transport, sc.Command = TransportStdio, *rs.Command
		if rs.Type != nil && *rs.Type != "stdio" {
			return sc, bad("type", fmt.Sprintf("%q does not go with command", *rs.Type), `drop "type", or set it to "stdio"`)
		}
		if rs.Headers != nil {
			return sc, bad("headers", "headers only apply to remote (url) servers", "drop headers, or use env for a stdio server")
		}
	case rs.URL != nil:
		sc.URL = *rs.URL
		sc.Transport = TransportHTTP
		if rs.Type != nil {
			switch *rs.Type {
			case "http", "streamable-http", "streamableHttp":
				sc.Transport = TransportHTTP
			case "sse":
				sc.Transport = TransportSSE
			default:
				return sc, bad("type", fmt.Sprintf("unknown transport %q", *rs.Type), `use "http" (streamable HTTP, the default) or "sse"`)
			}
		}
		if rs.Args != nil || rs.Env != nil || rs.Cwd != nil {
			return sc, bad("url", "args, env and cwd only apply to stdio (command) servers", "drop them, or use command instead of url")
		}
	default:
		l, c := position(data, locate(data, raw, "{"))
		return sc, &ConfigError{File: file, Line: l, Column: c, Field: field, Msg: "neither command nor url is set", Fix: `add "command" (and "args") for a local server, or "url" for a remote one`}
	}
	if rs.Cwd != nil {
		sc.Cwd = *rs.Cwd
	}
	sc.Era = EraAuto
	if rs.Protocol != nil {
		switch Era(*rs.Protocol) {
		case EraAuto, EraModern, EraLegacy:
			sc.Era = Era(*rs.Protocol)
		default:
			return sc, bad("protocol", fmt.Sprintf("unknown protocol %q", *rs.Protocol), `use "auto" (default), "modern" (2026-07-28) or "legacy" (2025-11-25 initialize)`)
		}
	}
	if rs.StartTimeout != nil {
		d, err := time.ParseDuration(*rs.StartTimeout)
		if err != nil || d <= 0 {
			return sc, bad("startTimeout", fmt.Sprintf("%q is not a positive duration", *rs.StartTimeout), `write it like "30s" or "2m"`)
		}
		sc.StartTimeout = d
	}
	if rs.ShutdownGrace != nil {
		d, err := time.ParseDuration(*rs.ShutdownGrace)
		if err != nil || d <= 0 || d > time.Minute {
			return sc, bad("shutdownGrace", fmt.Sprintf("%q is not a duration between 1ms and 1m", *rs.ShutdownGrace), `write it like "500ms" or "2s"`)
		}
		if sc.Transport != TransportStdio {
			return sc, bad("shutdownGrace", "only stdio servers have a process to wait for", "drop it from this url entry")
		}
		sc.ShutdownGrace = d
	}
	if d, ok := parseCallTimeout(rs.Timeout); ok {
		sc.CallTimeout = d
	}
	if rs.OAuth != nil {
		if sc.Transport == TransportStdio {
			return sc, bad("oauth", "only remote (url) servers log in with OAuth", "drop oauth from this command entry")
		}
		if g := rs.OAuth.Grant; g != "" && g != GrantAuthorizationCode && g != GrantClientCredentials && g != GrantEnterprise {
			return sc, bad("oauth", fmt.Sprintf("unknown grant %q", g), `use "authorization_code" (a browser login, the default), "client_credentials" or "enterprise"`)
		}
		o := *rs.OAuth
		sc.OAuth = &o
	}
	if err := expandServer(&sc, getenv); err != nil {
		sc.Problem = err.Error()
	}
	if sc.Problem == "" && sc.URL != "" {
		u, err := url.Parse(sc.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sc, bad("url", fmt.Sprintf("%q is not an http(s) URL", sc.URL), "write it like https://example.com/mcp")
		}
	}
	return sc, nil
}

// jsonError turns a decoding error into a ConfigError with a position.
func jsonError(file string, data []byte, field string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		l, c := position(data, int(syn.Offset))
		return &ConfigError{File: file, Line: l, Column: c, Msg: "invalid JSON: " + syn.Error(), Fix: "check for a missing comma, quote or brace near there"}
	case errors.As(err, &typ):
		f := field
		if typ.Field != "" {
			f = strings.TrimPrefix(field+"."+typ.Field, ".")
		}
		off := int(typ.Offset)
		if field != "" {
			// The offset is relative to the entry; find the entry in the file.
			if i := bytes.Index(data, []byte(`"`+lastSegment(field)+`"`)); i >= 0 {
				off += i
			}
		}
		l, c := position(data, off)
		return &ConfigError{File: file, Line: l, Column: c, Field: f, Msg: fmt.Sprintf("expected %s, found a JSON %s", typ.Type, typ.Value), Fix: "see the mcpServers example in the README"}
	}
	return &ConfigError{File: file, Field: field, Msg: err.Error()}
}

func lastSegment(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// locate finds needle inside the sub-slice raw of data and returns its
// absolute offset in data (or the start of raw when not found).
func locate(data, raw []byte, needle string) int {
	base := bytes.Index(data, raw)
	if base < 0 {
		base = 0
	}
	if i := bytes.Index(raw, []byte(needle)); i >= 0 {
		return base + i + 1
	}
	return base + 1
}

// position converts a 1-based byte offset into a 1-based line and column.
func position(data []byte, offset int) (line, col int) {
	if offset > len(data) {
		offset = len(data)
	}
	if offset < 1 {
		offset = 1
	}
	before := data[:offset-1]
	line = bytes.Count(before, []byte("\n")) + 1
	col = offset - bytes.LastIndexByte(before, '\n') - 1
	return line, col
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
