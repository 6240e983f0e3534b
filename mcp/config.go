package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/howl-mcp/howl/render"
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
	// DisabledTools are the entry's "disabledTools": tool names and
	// globs (path.Match: "write_*") the person switched off. The model
	// neither finds, describes nor calls them; the person still sees them.
	DisabledTools []string `json:"disabled_tools,omitempty"`
	// ImportedFrom is the file `howl mcp import` copied the entry from.
	ImportedFrom string `json:"imported_from,omitempty"`
	Era          Era    `json:"protocol,omitempty"`
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
	// Roots, when OwnRoots is set, are the directories offered to this
	// server when it asks (roots/list), instead of the runtime's: the
	// entry's "roots" ([] offers none).
	Roots    []string `json:"roots,omitempty"`
	OwnRoots bool     `json:"own_roots,omitempty"`
	// Problem is set when the entry parsed but cannot be started (an unset
	// ${VAR}, say). The runtime reports it as the server's failure reason;
	// the other servers are unaffected.
	Problem string `json:"problem,omitempty"`
	// Origin and File say whose file the entry came from.
	Origin Origin `json:"origin,omitempty"`
	File   string `json:"file,omitempty"`
	// Declared is what the entry runs or reaches as written, before ${VAR}
	// expansion (no secret is filled in): what howl shows when it asks to
	// trust the entry's file.
	Declared string `json:"declared,omitempty"`
	// Untrusted, when set, is why the entry does not start: it comes from a
	// project file the person has not trusted. Runtime.Trust clears it.
	Untrusted string `json:"untrusted,omitempty"`
	// Serve, when set, runs a stdio server in howl's own process on two
	// pipes (inprocess.go); Command and Args still say what it is. howl
	// sets it for its embedded demo; no config file can.
	Serve func(ctx context.Context, in io.Reader, out io.Writer) error `json:"-"`
}

// Origin says whose file a config entry came from.
type Origin string

// The origins of config files.
const (
	// OriginUser is the person's own config: <user config dir>/howl/mcp.json,
	// or a file they named with --config or $HOWL_CONFIG outside the
	// working directory. Trusted.
	OriginUser Origin = "user"
	// OriginProject is a file found in, or named under, the working
	// directory (./.mcp.json): written by whoever wrote the project, so
	// nothing from it runs or applies until the person trusts it.
	OriginProject Origin = "project"
)

// ConfigFile is one config file howl read, and whether it may be used.
type ConfigFile struct {
	// Path is absolute, links resolved.
	Path string
	// Key is what its trust is recorded under (TrustKey): Path, unless the
	// file is a link.
	Key    string
	Origin Origin
	// SHA256 is the hash of the bytes read: an approval names it, so a
	// file that changes is asked about again.
	SHA256  string
	Trusted bool
	// Why says how trust was decided ("your own config", "trusted on
	// 2026-12-01", "changed since you trusted it on 2026-11-30", ...).
	Why string
	// Runs lists what each of its servers would run or reach, as written.
	Runs []string
	// Keys are the top-level keys it sets besides mcpServers (model,
	// base_url, permissions, ...).
	Keys  []string
	extra map[string]json.RawMessage
}

// Summary is what the file would do if trusted, one line each: each
// server's entry, and each top-level setting with its value as written
// (a base_url is where a model's API key would go, permissions what runs
// unasked), each cut to maxSettingShown bytes.
func (f ConfigFile) Summary() []string {
	out := append([]string(nil), f.Runs...)
	for _, k := range f.Keys {
		out = append(out, render.SanitizeLine("sets "+k+": "+shownCut(compactJSON(f.extra[k]))))
	}
	if len(out) == 0 {
		out = append(out, "declares no servers and sets nothing")
	}
	return out
}

// maxSettingShown bounds each top-level setting's value, and an entry's
// OAuth settings, in what a trust prompt shows.
const maxSettingShown = 400

// shownCut is v cut to maxSettingShown bytes, saying how long it is.
func shownCut(v string) string {
	if len(v) <= maxSettingShown {
		return v
	}
	return render.Ellipsize(v, maxSettingShown) + fmt.Sprintf(" (%d bytes: see the file)", len(v))
}

// Config is the set of servers howl talks to and where they came from.
type Config struct {
	// Source is the first file the servers came from (the user's own when
	// there is one), or "" for the embedded demo.
	Source string
	// Servers, sorted by name.
	Servers []ServerConfig
	// Extra holds the other top-level keys (howl's "model" settings, say)
	// of the trusted files, for the packages that own them to parse. A key
	// the user's own file sets wins over a project's.
	Extra map[string]json.RawMessage
	// ExtraSource names the file each Extra key came from.
	ExtraSource map[string]string
	// Files are the files read, the user's own first.
	Files []ConfigFile
	// UserFile is the person's own config file in use, "" when none: the
	// only file howl writes settings into.
	UserFile string
	// Notes say what merging decided: a name clash, a key ignored, a
	// project file that could not be read.
	Notes []string
	// Broken are the project files that could not be read or parsed
	// (a note says so too): their servers are left out.
	Broken []BrokenFile
	// Looked are the files looked for when none was found and the demo
	// runs instead, the user's own first (the one to create); a path in
	// the working directory is relative to it.
	Looked []string
}

// BrokenFile is a config file that could not be used, and why.
type BrokenFile struct {
	Path string
	Err  error
}

// Untrusted returns the project files in use that are not trusted.
func (c *Config) Untrusted() []ConfigFile {
	var out []ConfigFile
	for _, f := range c.Files {
		if !f.Trusted {
			out = append(out, f)
		}
	}
	return out
}

// SourceOf names the file a top-level key came from (Source when unknown).
func (c *Config) SourceOf(key string) string {
	if s, ok := c.ExtraSource[key]; ok {
		return s
	}
	return c.Source
}

// TrustFile marks the project file at path trusted for this run: its
// servers lose their Untrusted reason and its keys apply where the
// user's own file does not set them. It returns the servers that may now
// start (already in the runtime they still need Runtime.Trust).
func (c *Config) TrustFile(path, why string) []string {
	var names []string
	for i := range c.Files {
		f := &c.Files[i]
		if f.Path != path || f.Trusted {
			continue
		}
		f.Trusted, f.Why = true, why
		c.mergeExtra(*f)
	}
	for i := range c.Servers {
		if c.Servers[i].File == path && c.Servers[i].Untrusted != "" {
			c.Servers[i].Untrusted = ""
			names = append(names, c.Servers[i].Name)
		}
	}
	return names
}

// mergeExtra adds a trusted file's top-level keys that no earlier file set.
func (c *Config) mergeExtra(f ConfigFile) {
	for _, k := range f.Keys {
		v := f.extra[k]
		if prev, ok := c.Extra[k]; ok {
			if !bytes.Equal(bytes.TrimSpace(prev), bytes.TrimSpace(v)) {
				c.Notes = append(c.Notes, fmt.Sprintf("%q in %s is ignored: %s sets it too, and that one is kept", k, f.Path, c.ExtraSource[k]))
			}
			continue
		}
		c.Extra[k] = v
		c.ExtraSource[k] = f.Path
	}
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
	// Trust holds the person's approvals of project files
	// (DefaultTrustStore when nil).
	Trust *TrustStore
	// TrustProject trusts every project file for this run (--trust-project).
	TrustProject bool
	// RunTrust are the project files the person trusted for this run
	// only, by absolute path, each with the SHA-256 of the content they
	// saw: a file that changed since is untrusted again.
	RunTrust map[string]string
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

// configCandidate is a file to read and whose it is.
type configCandidate struct {
	path   string
	origin Origin
	// named: the person named it (--config, $HOWL_CONFIG); a file that
	// does not parse is then an error, not a note.
	named bool
}

// FindConfig returns the first config file that applies, or "" when none
// exists (see ConfigFiles for all of them).
func FindConfig(opts LoadOptions) (string, error) {
	cands, err := findConfigs(opts)
	if err != nil || len(cands) == 0 {
		return "", err
	}
	return cands[0].path, nil
}

// findConfigs returns the files to read: --config alone, else $HOWL_CONFIG
// alone, else <user config dir>/howl/mcp.json and ./.mcp.json together
// (the user's first). Each is marked user or project: a file under the
// working directory is the project's unless it is the user's own config.
func findConfigs(opts LoadOptions) ([]configCandidate, error) {
	getenv := opts.getenv()
	wd, ucd := configDirs(opts)
	// A file whose path, as named or resolved, lies under the working
	// directory is the project's: a link there to a file elsewhere (one
	// the repository ships beside it, say) does not make it the person's.
	originOf := func(p string) Origin {
		abs := realPath(p)
		if ucd != "" && within(abs, realPath(ucd)) {
			return OriginUser
		}
		if within(abs, realPath(wd)) || within(absPath(p), absPath(wd)) {
			return OriginProject
		}
		return OriginUser
	}
	if opts.Path != "" {
		if _, err := os.Stat(opts.Path); err != nil {
			return nil, fmt.Errorf("--config %s: %w: pass an existing file, or drop --config to use the default lookup", opts.Path, err)
		}
		return []configCandidate{{opts.Path, originOf(opts.Path), true}}, nil
	}
	if p, ok := getenv("HOWL_CONFIG"); ok && p != "" {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("HOWL_CONFIG=%s: %w: point it at an existing file or unset it", p, err)
		}
		return []configCandidate{{p, originOf(p), true}}, nil
	}
	var out []configCandidate
	for _, c := range defaultCandidates(wd, ucd) {
		st, err := os.Stat(c.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", c.path, err)
		}
		if err != nil || st.IsDir() {
			continue
		}
		if len(out) > 0 && realPath(out[0].path) == realPath(c.path) {
			continue // the working directory is the user config dir
		}
		out = append(out, c)
	}
	return out, nil
}

// configDirs are the working directory and the user config directory
// the default lookup reads.
func configDirs(opts LoadOptions) (wd, ucd string) {
	wd = opts.WorkDir
	if wd == "" {
		wd = "."
	}
	ucd = opts.UserConfigDir
	if ucd == "" {
		ucd, _ = os.UserConfigDir()
	}
	return wd, ucd
}

// defaultCandidates are the files the default lookup reads, the user's
// own first: <user config dir>/howl/mcp.json, then ./.mcp.json.
func defaultCandidates(wd, ucd string) []configCandidate {
	var cands []configCandidate
	if ucd != "" {
		cands = append(cands, configCandidate{filepath.Join(ucd, "howl", "mcp.json"), OriginUser, false})
	}
	return append(cands, configCandidate{filepath.Join(wd, ".mcp.json"), OriginProject, false})
}

// absPath is p made absolute and clean, links left as they are.
func absPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return abs
}

// TrustKey is the path a project file's trust is recorded under: the file
// as found, its directories' links resolved (realPath) but not a link the
// file itself is. A .mcp.json linked to a config trusted elsewhere would
// otherwise inherit that trust and run its servers here, in a directory
// whose server.py or node_modules the link's author chose; the link is
// asked about where it lies.
func TrustKey(p string) string {
	abs := absPath(p)
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return filepath.Join(realPath(filepath.Dir(abs)), filepath.Base(abs))
	}
	return realPath(abs)
}

// realPath is p made absolute with its symlinks resolved (as far as they
// resolve).
func realPath(p string) string {
	abs := absPath(p)
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// within reports whether path is dir or under it (both absolute, clean).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// MaxConfigBytes bounds a config file howl reads.
const MaxConfigBytes = 4 << 20

// ReadConfigBytes reads a config file of at most MaxConfigBytes. It must
// be a regular file (through any links): a named pipe would block the
// read, a device (/dev/zero) never ends.
func ReadConfigBytes(path string) ([]byte, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st) // replaced between the two looks
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", path, err)
	}
	if len(data) > MaxConfigBytes {
		return nil, &ConfigError{File: path, Msg: fmt.Sprintf("is larger than %d bytes (MaxConfigBytes)", MaxConfigBytes), Fix: "a config lists servers and settings: check that this is the right file"}
	}
	return data, nil
}

// notRegular is the error for a config path that is not a regular file.
func notRegular(path string, st os.FileInfo) error {
	kind := "not a file"
	switch m := st.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return &ConfigError{File: path, Msg: "is not a regular file (it is " + kind + ")", Fix: "a config is a JSON file: point at the file itself"}
}

// LoadConfig finds, parses and merges the config files. No file anywhere
// means the embedded demo server (opts.Demo).
//
// The user's own file and a project's ./.mcp.json are merged: the
// project's servers are added (a name the user's file has keeps the
// user's entry, and a note says so), its top-level keys apply where the
// user's file does not set them. A project file is trusted only when the
// person approved this exact content (TrustStore) or passed
// TrustProject; until then its servers carry an Untrusted reason and do
// not start, and its keys are ignored.
func LoadConfig(opts LoadOptions) (*Config, error) {
	cands, err := findConfigs(opts)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		demo := opts.Demo
		if demo.Transport == "" {
			demo.Transport = TransportStdio
		}
		cfg := &Config{Servers: []ServerConfig{demo}, Extra: map[string]json.RawMessage{}, ExtraSource: map[string]string{}}
		for _, c := range defaultCandidates(configDirs(opts)) {
			cfg.Looked = append(cfg.Looked, c.path)
		}
		return cfg, nil
	}
	cfg := &Config{Extra: map[string]json.RawMessage{}, ExtraSource: map[string]string{}}
	for _, c := range cands {
		parsed, f, err := readConfigFile(c.path, c.origin, opts.getenv())
		if err != nil {
			if c.named || c.origin == OriginUser {
				return nil, err
			}
			cfg.Notes = append(cfg.Notes, fmt.Sprintf("the project config is not used: %v", err))
			cfg.Broken = append(cfg.Broken, BrokenFile{Path: realPath(c.path), Err: err})
			continue
		}
		f.Trusted, f.Why = trustOf(opts, f)
		if cfg.Source == "" {
			cfg.Source = c.path
		}
		if c.origin == OriginUser && cfg.UserFile == "" {
			cfg.UserFile = c.path
		}
		for _, sc := range parsed.Servers {
			if prev, ok := cfg.Server(sc.Name); ok {
				cfg.Notes = append(cfg.Notes, fmt.Sprintf("server %q in %s is ignored: %s has a server of that name, and that one is kept", sc.Name, f.Path, prev.File))
				continue
			}
			if !f.Trusted {
				sc.Untrusted = untrustedReason(f)
			}
			cfg.Servers = append(cfg.Servers, sc)
		}
		if f.Trusted {
			cfg.mergeExtra(f)
		}
		cfg.Files = append(cfg.Files, f)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

// readConfigFile reads and parses one file, and describes it.
func readConfigFile(path string, origin Origin, getenv func(string) (string, bool)) (*Config, ConfigFile, error) {
	data, err := ReadConfigBytes(path)
	if err != nil {
		return nil, ConfigFile{}, err
	}
	return parseConfigFile(path, data, origin, getenv)
}

// parseConfigFile is readConfigFile of data, read from path.
func parseConfigFile(path string, data []byte, origin Origin, getenv func(string) (string, bool)) (*Config, ConfigFile, error) {
	parsed, err := ParseConfig(path, data, getenv)
	if err != nil {
		return nil, ConfigFile{}, err
	}
	f := ConfigFile{Path: realPath(path), Key: TrustKey(path), Origin: origin, SHA256: hashConfig(data), extra: parsed.Extra}
	for i, sc := range parsed.Servers {
		f.Runs = append(f.Runs, sc.Name+": "+sc.Declared)
		parsed.Servers[i].Origin, parsed.Servers[i].File = origin, f.Path
	}
	for k := range parsed.Extra {
		f.Keys = append(f.Keys, k)
	}
	sort.Strings(f.Keys)
	return parsed, f, nil
}

// InspectConfig reads the config file at path as a project file, for the
// person to see what trusting it would let it do (howl trust). Nothing in
// it runs.
func InspectConfig(path string) (ConfigFile, error) {
	_, f, err := readConfigFile(path, OriginProject, noEnv)
	return f, err
}

// InspectConfigBytes is InspectConfig of data, as if read from path.
func InspectConfigBytes(path string, data []byte) (ConfigFile, error) {
	_, f, err := parseConfigFile(path, data, OriginProject, noEnv)
	return f, err
}

// noEnv is an environment with no variables set.
func noEnv(string) (string, bool) { return "", false }

// trustOf decides whether a file may be used, and says why.
func trustOf(opts LoadOptions, f ConfigFile) (bool, string) {
	if f.Origin == OriginUser {
		return true, "your own config"
	}
	if opts.TrustProject {
		return true, "trusted for this run (--trust-project)"
	}
	if sum, ok := opts.RunTrust[f.Key]; ok {
		if sum == f.SHA256 {
			return true, "trusted for this run"
		}
		return false, "changed since you trusted it for this run"
	}
	ts, err := opts.trustStore()
	if err != nil {
		return false, "not trusted: " + err.Error()
	}
	e, ok, err := ts.Lookup(f.Key)
	switch {
	case err != nil:
		return false, "not trusted: " + err.Error()
	case ok && e.SHA256 == f.SHA256:
		return true, "trusted on " + e.Trusted.Local().Format("2006-01-02")
	case ok:
		return false, "changed since you trusted it on " + e.Trusted.Local().Format("2006-01-02")
	}
	return false, "never trusted"
}

// untrustedReason is the failure reason of a server from an untrusted file.
func untrustedReason(f ConfigFile) string {
	return fmt.Sprintf("not started: it comes from %s, a project config you have not trusted (%s): trust it with `%s`, or pass --trust-project for one run",
		f.Path, f.Why, TrustCommand(f.Key))
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
	Roots         *[]string         `json:"roots"`
	DisabledTools []string          `json:"disabledTools"`
	ImportedFrom  *string           `json:"importedFrom"`
	// VS Code's: an env file howl does not read (a Problem), dev-mode settings.
	EnvFile *string `json:"envFile"`
	Dev     any     `json:"dev"`
	// Accepted and ignored: other clients write these.
	Description any `json:"description"`
	AutoApprove any `json:"autoApprove"`
	Timeout     any `json:"timeout"`
}

// knownServerFields lists the keys an entry may carry, for "did you mean".
var knownServerFields = []string{"command", "args", "env", "cwd", "url", "type", "headers", "disabled", "protocol", "startTimeout", "shutdownGrace", "oauth", "sampling", "roots", "disabledTools", "importedFrom", "envFile", "dev", "description", "autoApprove", "timeout"}

// ParseConfig parses a Claude-Desktop-shaped file, {"mcpServers": {name:
// entry}}, or VS Code's mcp.json, {"servers": {name: entry}, "inputs":
// [...]} (its "inputs" are prompts VS Code shows; an entry that uses one,
// ${input:ID}, reports that it needs a value). Unknown top-level keys are ignored (other clients share the file); unknown
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
	key := "mcpServers"
	rawServers, ok := top[key]
	if vs, isVS := top["servers"]; !ok && isVS {
		key, rawServers, ok = "servers", vs, true
	}
	if !ok {
		return nil, &ConfigError{File: file, Field: "mcpServers", Msg: "missing", Fix: `write {"mcpServers": {"name": {"command": "...", "args": [...]}}}`}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil {
		return nil, jsonError(file, data, key, err)
	}
	cfg := &Config{Source: file, Extra: map[string]json.RawMessage{}, ExtraSource: map[string]string{}}
	for k, v := range top {
		if k != key && (key != "servers" || k != "inputs") {
			cfg.Extra[k] = v
			cfg.ExtraSource[k] = file
		}
	}
	for name, raw := range entries {
		sc, err := parseServer(file, data, key, name, raw, getenv)
		if err != nil {
			return nil, err
		}
		cfg.Servers = append(cfg.Servers, sc)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

func parseServer(file string, data []byte, key, name string, raw json.RawMessage, getenv func(string) (string, bool)) (ServerConfig, error) {
	field := key + "." + name
	if strings.TrimSpace(name) == "" {
		return ServerConfig{}, &ConfigError{File: file, Field: key, Msg: "a server has an empty name", Fix: "give every server a non-empty key"}
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
		if g := rs.OAuth.Grant; g != "" && g != GrantAuthorizationCode && g != GrantClientCredentials && g != GrantEnterprise && g != GrantJWTBearer {
			return sc, bad("oauth", fmt.Sprintf("unknown grant %q", g), `use "authorization_code" (a browser login, the default), "client_credentials", "enterprise" or "jwt_bearer"`)
		}
		o := *rs.OAuth
		sc.OAuth = &o
	}
	if rs.Roots != nil {
		sc.Roots, sc.OwnRoots = append([]string{}, *rs.Roots...), true
		for i, d := range sc.Roots {
			if strings.TrimSpace(d) == "" {
				return sc, bad("roots", fmt.Sprintf("roots[%d] is empty", i), `list directories, e.g. "roots": ["/home/me/notes"], or [] to offer none`)
			}
		}
	}
	for i, g := range rs.DisabledTools {
		if _, err := path.Match(g, ""); err != nil || strings.TrimSpace(g) == "" {
			return sc, bad("disabledTools", fmt.Sprintf("disabledTools[%d] %q is not a tool name or glob", i, g), `list names or globs like "write_*"`)
		}
	}
	sc.DisabledTools = rs.DisabledTools
	if rs.ImportedFrom != nil {
		sc.ImportedFrom = *rs.ImportedFrom
	}
	sc.Declared = declared(sc)
	written := sc.URL
	if err := expandServer(&sc, getenv); err != nil {
		sc.Problem = err.Error()
	}
	if rs.EnvFile != nil && sc.Problem == "" {
		sc.Problem = fmt.Sprintf("envFile %q is not read by howl: copy its variables into \"env\"", *rs.EnvFile)
	}
	if sc.Problem == "" && sc.URL != "" {
		u, err := url.Parse(sc.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// As written: the message is shown before the file is trusted,
			// and a ${VAR} it fills in may be a secret.
			what := fmt.Sprintf("%q is not an http(s) URL", written)
			if written != sc.URL {
				what += " once its variables are filled in"
			}
			return sc, bad("url", what, "write it like https://example.com/mcp")
		}
	}
	return sc, nil
}

// DeclaredOf is what the entry runs or reaches, as written (declared):
// for entries built in code, which carry no Declared of their own.
func DeclaredOf(sc ServerConfig) string { return declared(sc) }

// declared says what an entry runs or reaches, as written (before ${VAR}
// expansion, so no secret is filled in), on one sanitized line: the
// command line with its environment and working directory, or the URL
// with its headers and OAuth settings (a client secret, an ID token or an
// assertion file is sent to a token endpoint the server names); then the
// directories it is offered and whether it may ask the person's model.
func declared(sc ServerConfig) string {
	var b strings.Builder
	if sc.Transport == TransportStdio {
		b.WriteString("runs ")
		for _, k := range sortedKeys(sc.Env) {
			fmt.Fprintf(&b, "%s=%s ", k, shellQuote(shownSecret(k, sc.Env[k])))
		}
		b.WriteString(shellQuote(sc.Command))
		for _, a := range sc.Args {
			b.WriteString(" " + shellQuote(a))
		}
		if sc.Cwd != "" {
			b.WriteString(" (in " + shellQuote(sc.Cwd) + ")")
		}
	} else {
		fmt.Fprintf(&b, "connects to %s (%s)", sc.URL, sc.Transport)
		for _, k := range sortedKeys(sc.Headers) {
			fmt.Fprintf(&b, ", header %s: %s", k, shownSecret(k, sc.Headers[k]))
		}
		if sc.OAuth != nil {
			fmt.Fprintf(&b, ", oauth %s", declaredOAuth(*sc.OAuth))
		}
	}
	if sc.OwnRoots {
		fmt.Fprintf(&b, ", offered roots %s", strings.Join(quoteAll(sc.Roots), " "))
	}
	if sc.Sampling {
		b.WriteString(", may ask your model (sampling)")
	}
	return render.SanitizeLine(b.String())
}

// declaredOAuth is an entry's OAuth settings as written, cut to
// maxSettingShown: a ${VAR} or a file path says what would be sent, and a
// secret written into the file itself is shown by its length only (howl
// mcp list shows this line for your own servers too).
func declaredOAuth(o OAuthSettings) string {
	for _, secret := range []*string{&o.ClientSecret, &o.PrivateKeyPEM, &o.IDToken, &o.Assertion} {
		*secret = shownSecret("secret", *secret)
	}
	b, _ := json.Marshal(o)
	return shownCut(string(b))
}

// shownSecret is value as declared() shows it: the value of a setting
// whose name says it holds a secret (an Authorization or Cookie header, a
// GITHUB_TOKEN or OPENAI_API_KEY variable), written into the file itself,
// is shown by its length only, so howl mcp list on a shared screen does
// not show the person's own tokens. A ${VAR} is shown as written: it says
// which secret is sent where, which is what trusting a file decides.
func shownSecret(name, value string) string {
	if value == "" || strings.Contains(value, "${") || !secretName(name) {
		return value
	}
	return fmt.Sprintf("(written in the file, %d bytes)", len(value))
}

// secretName reports whether an environment variable's or a header's name
// says it carries a secret. Names that point at a program or a file
// (GIT_ASKPASS, NODE_OPTIONS, LD_PRELOAD, SSLKEYLOGFILE) do not match:
// what they hold is what a trust prompt must show.
func secretName(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	switch n {
	case "authorization", "proxy_authorization", "cookie", "secret", "token", "password", "api_key", "apikey":
		return true
	}
	for _, suffix := range []string{"_token", "_secret", "_password", "_passwd", "_key", "_apikey", "_credentials"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// quoteAll is each of list, shell-quoted ("[]" for none).
func quoteAll(list []string) []string {
	if len(list) == 0 {
		return []string{"[]"}
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = shellQuote(s)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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

// ScopeFile is the file a scope's servers are written to: for
// OriginUser, --config (opts.Path) or $HOWL_CONFIG when set, else
// <user config dir>/howl/mcp.json; for OriginProject, ./.mcp.json in
// opts.WorkDir. The file need not exist yet.
func ScopeFile(opts LoadOptions, scope Origin) (string, error) {
	switch scope {
	case OriginProject:
		wd := opts.WorkDir
		if wd == "" {
			wd = "."
		}
		return filepath.Abs(filepath.Join(wd, ".mcp.json"))
	case OriginUser:
		if opts.Path != "" {
			return filepath.Abs(opts.Path)
		}
		if p, ok := opts.getenv()("HOWL_CONFIG"); ok && p != "" {
			return filepath.Abs(p)
		}
		ucd := opts.UserConfigDir
		if ucd == "" {
			var err error
			if ucd, err = os.UserConfigDir(); err != nil {
				return "", fmt.Errorf("finding your config dir: %w: pass --config FILE", err)
			}
		}
		return filepath.Join(ucd, "howl", "mcp.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q: use user or project", scope)
}

// ServerEntryJSON returns a server's entry as written in data (the
// "mcpServers" or "servers" object), byte for byte.
func ServerEntryJSON(file string, data []byte, name string) ([]byte, bool) {
	servers, _, err := findServers(file, data)
	if err != nil {
		return nil, false
	}
	e, _, ok := servers.find(name)
	if !ok {
		return nil, false
	}
	return data[e.valStart:e.valEnd], true
}
