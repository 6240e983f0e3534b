package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// The clients howl imports servers from.
const (
	ClientClaudeDesktop = "claude-desktop"
	ClientClaudeCode    = "claude-code"
	ClientVSCode        = "vscode"
	ClientCursor        = "cursor"
)

// ImportClients lists the clients `howl mcp import --from` knows.
var ImportClients = []string{ClientClaudeDesktop, ClientClaudeCode, ClientVSCode, ClientCursor}

// ImportPlaces says where to look for other clients' configs.
type ImportPlaces struct {
	// Home is the person's home directory; UserConfigDir the platform's
	// config dir (os.UserConfigDir: ~/.config, ~/Library/Application
	// Support, %AppData%); WorkDir the project directory.
	Home, UserConfigDir, WorkDir string
}

// ImportSource is one config file of another client.
type ImportSource struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	// Section is where in the file the servers are, when not at the top
	// (Claude Code keeps a project's servers under projects.<dir>).
	Section string `json:"section,omitempty"`
}

// ImportSources lists the documented config files of client ("" for
// every client), whether they exist or not.
func ImportSources(client string, p ImportPlaces) ([]ImportSource, error) {
	wd, err := filepath.Abs(p.WorkDir)
	if err != nil {
		return nil, err
	}
	all := map[string][]ImportSource{
		ClientClaudeDesktop: {{Path: filepath.Join(p.UserConfigDir, "Claude", "claude_desktop_config.json")}},
		ClientClaudeCode: {
			{Path: filepath.Join(p.Home, ".claude.json")},
			{Path: filepath.Join(p.Home, ".claude.json"), Section: wd},
			{Path: filepath.Join(wd, ".mcp.json")},
		},
		ClientVSCode: {
			{Path: filepath.Join(p.UserConfigDir, "Code", "User", "mcp.json")},
			{Path: filepath.Join(wd, ".vscode", "mcp.json")},
		},
		ClientCursor: {
			{Path: filepath.Join(p.Home, ".cursor", "mcp.json")},
			{Path: filepath.Join(wd, ".cursor", "mcp.json")},
		},
	}
	clients := ImportClients
	if client != "" {
		if _, ok := all[client]; !ok {
			return nil, fmt.Errorf("unknown client %q: use one of %v, or a file's path", client, ImportClients)
		}
		clients = []string{client}
	}
	var out []ImportSource
	for _, c := range clients {
		for _, s := range all[c] {
			s.Client = c
			out = append(out, s)
		}
	}
	return out, nil
}

// ImportEntry is one server found in another client's config.
type ImportEntry struct {
	Name string `json:"name"`
	From string `json:"from"`
	// Does is what it runs or reaches, as written.
	Does string `json:"does,omitempty"`
	// Entry is what would be written: the entry as the client wrote it,
	// with "importedFrom" added.
	Entry json.RawMessage `json:"entry,omitempty"`
	// Problem: why it cannot be imported as is (it does not parse), or
	// what it needs before it starts (an ${input:...}, an unset variable).
	Problem string `json:"problem,omitempty"`
	// Skip is set when it will not be added: "invalid", "clash" (another
	// entry of that name) or "same" (already there).
	Skip string `json:"skip,omitempty"`
}

// ReadImport reads the servers of one source. A file that does not exist
// is (nil, nil). The file is someone else's: it is bounded
// (MaxConfigBytes), parsed, never run.
func ReadImport(src ImportSource) ([]ImportEntry, error) {
	data, err := ReadConfigBytes(src.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(src.Path, data, "", err)
	}
	from := src.Path
	if src.Section != "" {
		var projects map[string]struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if raw, ok := top["projects"]; !ok || json.Unmarshal(raw, &projects) != nil {
			return nil, nil
		}
		p, ok := projects[src.Section]
		if !ok || p.MCPServers == nil {
			return nil, nil
		}
		top = map[string]json.RawMessage{"mcpServers": p.MCPServers}
		from = src.Path + " (projects." + src.Section + ")"
	}
	key := "mcpServers"
	if _, ok := top[key]; !ok {
		key = "servers"
	}
	var servers map[string]json.RawMessage
	if raw, ok := top[key]; !ok || json.Unmarshal(raw, &servers) != nil {
		return nil, nil
	}
	noEnv := func(string) (string, bool) { return "", false }
	var out []ImportEntry
	for name, raw := range servers {
		e := ImportEntry{Name: name, From: from}
		one, _ := json.Marshal(map[string]json.RawMessage{key: json.RawMessage(`{` + string(mustJSON(name)) + `:` + string(raw) + `}`)})
		cfg, err := ParseConfig(src.Path, one, noEnv)
		if err != nil {
			e.Problem, e.Skip = err.Error(), "invalid"
			out = append(out, e)
			continue
		}
		sc, _ := cfg.Server(name)
		e.Does = sc.Declared
		if sc.Problem != "" && !bytes.Contains(raw, []byte("${input:")) {
			sc.Problem = "" // an unset variable here may be set where howl runs
		}
		e.Problem = sc.Problem
		if e.Entry, err = SetTopLevel(src.Path, bytes.TrimSpace(raw), "importedFrom", mustJSON(from)); err != nil {
			e.Problem, e.Skip = err.Error(), "invalid"
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// MarkClashes sets Skip on the entries the config file data (the target)
// already has: "same" when the entry is there as written, else "clash".
// Two entries of one name among the imports clash too (the first is kept).
func MarkClashes(file string, data []byte, entries []ImportEntry) {
	seen := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.Skip != "" {
			continue
		}
		if seen[e.Name] {
			e.Skip = "clash"
			continue
		}
		seen[e.Name] = true
		have, ok := ServerEntryJSON(file, data, e.Name)
		if !ok {
			continue
		}
		e.Skip = "clash"
		if sameJSON(have, e.Entry) {
			e.Skip = "same"
		}
	}
}

// sameJSON compares two entries, ignoring formatting.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// ImportFileSource is a FILE given to --from: read as whatever shape it has.
func ImportFileSource(path string) (ImportSource, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ImportSource{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return ImportSource{}, fmt.Errorf("--from %s: %w: name a client (%v) or an existing file", path, err, ImportClients)
	}
	return ImportSource{Client: "file", Path: abs}, nil
}
