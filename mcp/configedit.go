package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// EditConfigFile is the one writer of a person's config file: it reads
// the file at path (a symlink is followed to the file it points at, and
// stays a link), hands its bytes to edit, and replaces the real file
// with what edit returns, through a temporary file beside it and a
// rename, keeping the file's mode. A file that does not exist yet is
// created (mode 0600) from empty bytes. When edit fails, or the rename
// does, the old file is left byte-identical.
func EditConfigFile(path string, edit func(old []byte) ([]byte, error)) error {
	real, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		real = path
		if target, lerr := os.Readlink(path); lerr == nil { // a dangling link: create what it names
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			real = target
		}
	case err != nil:
		return err
	}
	perm := os.FileMode(0o600)
	var data []byte
	if info, err := os.Stat(real); err == nil {
		perm = info.Mode().Perm()
		if data, err = ReadConfigBytes(real); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := edit(data)
	if err != nil {
		return err
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return WriteFileAtomic(real, out, perm)
}

// jsonMember is one "key": value of a JSON object, by byte offsets.
type jsonMember struct {
	key                        string
	keyStart, valStart, valEnd int
}

// jsonObject is an object's members and the offsets of its braces.
type jsonObject struct {
	open, close int
	members     []jsonMember
}

// scanObject reads the object that starts at data[start] ('{' after
// optional white space) without changing a byte of it.
func scanObject(data []byte, start int) (jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	tok, err := dec.Token()
	if err != nil {
		return jsonObject{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return jsonObject{}, fmt.Errorf("expected an object, found %v", tok)
	}
	obj := jsonObject{open: start + int(dec.InputOffset()) - 1}
	for dec.More() {
		from := start + int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return obj, err
		}
		key, _ := tok.(string)
		keyStart := from + bytes.IndexByte(data[from:], '"')
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return obj, err
		}
		end := start + int(dec.InputOffset())
		obj.members = append(obj.members, jsonMember{key: key, keyStart: keyStart, valStart: end - len(raw), valEnd: end})
	}
	if _, err := dec.Token(); err != nil {
		return obj, err
	}
	obj.close = start + int(dec.InputOffset()) - 1
	return obj, nil
}

// count is how many of o's members are named key: JSON allows a name
// twice, and encoding/json (so the loader) keeps the last.
func (o jsonObject) count(key string) int {
	n := 0
	for _, m := range o.members {
		if m.key == key {
			n++
		}
	}
	return n
}

func (o jsonObject) find(key string) (jsonMember, int, bool) {
	for i, m := range o.members {
		if m.key == key {
			return m, i, true
		}
	}
	return jsonMember{}, -1, false
}

// indentBefore is the white space that starts the line off sits on, and
// whether off is the first thing on its line.
func indentBefore(data []byte, off int) (string, bool) {
	nl := bytes.LastIndexByte(data[:off], '\n')
	ws := data[nl+1 : off]
	if len(bytes.TrimLeft(ws, " \t")) != 0 {
		return "", false
	}
	return string(ws), nl >= 0
}

// layout is how an object's members are written: each on its own line at
// indent (a step deeper than the object's own line), or all on one line.
type layout struct {
	multiline    bool
	indent, step string
	// spaced: a one-line object written with ", " and ": ".
	spaced bool
}

func (o jsonObject) layout(data []byte) layout {
	own, _ := indentBefore(data, lineStartOf(data, o.open))
	if len(o.members) == 0 {
		return layout{multiline: true, indent: own + "  ", step: "  "}
	}
	first := o.members[0]
	ind, ok := indentBefore(data, first.keyStart)
	if !ok {
		return layout{spaced: bytes.HasSuffix(data[first.keyStart:first.valStart], []byte(": "))}
	}
	step := strings.TrimPrefix(ind, own)
	if step == "" || len(ind) <= len(own) {
		step = "  "
	}
	return layout{multiline: true, indent: ind, step: step}
}

// lineStartOf returns the offset of the first non-blank byte of off's line.
func lineStartOf(data []byte, off int) int {
	nl := bytes.LastIndexByte(data[:off], '\n') + 1
	for nl < off && (data[nl] == ' ' || data[nl] == '\t') {
		nl++
	}
	return nl
}

// format writes v (compact JSON) the way l lays members out.
func (l layout) format(v []byte) []byte {
	if !l.multiline {
		var b bytes.Buffer
		if !l.spaced {
			_ = json.Compact(&b, v)
			return b.Bytes()
		}
		_ = json.Indent(&b, v, "", "")
		return joinJSONLines(b.Bytes())
	}
	var b bytes.Buffer
	if err := json.Indent(&b, v, l.indent, l.step); err != nil {
		return v
	}
	return b.Bytes()
}

// joinJSONLines joins the lines json.Indent wrote with no indent into one:
// {"a": 1, "b": [2, 3]}. (A JSON string holds no raw newline.)
func joinJSONLines(indented []byte) []byte {
	lines := bytes.Split(indented, []byte("\n"))
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 && !bytes.HasSuffix(lines[i-1], []byte("[")) && !bytes.HasSuffix(lines[i-1], []byte("{")) &&
			!bytes.HasPrefix(l, []byte("]")) && !bytes.HasPrefix(l, []byte("}")) {
			b.WriteByte(' ')
		}
		b.Write(l)
	}
	return b.Bytes()
}

// setMember sets key to value (JSON) in the object o of data: an existing
// member's value is replaced where it stands; a new one goes last, laid
// out like its siblings. Every other byte stays.
func setMember(data []byte, o jsonObject, key string, value []byte) []byte {
	l := o.layout(data)
	val := l.format(value)
	if m, _, ok := o.find(key); ok {
		return splice(data, m.valStart, m.valEnd, val)
	}
	k, _ := json.Marshal(key)
	member := append(append(k, []byte(": ")...), val...)
	if !l.multiline && !l.spaced {
		member = append(append(k, ':'), val...)
	}
	if len(o.members) == 0 {
		if !l.multiline {
			return splice(data, o.open+1, o.close, member)
		}
		own, _ := indentBefore(data, lineStartOf(data, o.open))
		ins := append(append([]byte("\n"+l.indent), member...), "\n"+own...)
		return splice(data, o.open+1, o.close, ins)
	}
	last := o.members[len(o.members)-1]
	sep := []byte(",")
	if l.multiline {
		sep = append(sep, "\n"+l.indent...)
	} else if l.spaced {
		sep = append(sep, ' ')
	}
	return splice(data, last.valEnd, last.valEnd, append(sep, member...))
}

// removeMember deletes member i of o, with the comma that joined it.
func removeMember(data []byte, o jsonObject, i int) []byte {
	m := o.members[i]
	switch {
	case len(o.members) == 1:
		return splice(data, o.open+1, o.close, nil)
	case i == 0:
		return splice(data, m.keyStart, o.members[1].keyStart, nil)
	default:
		return splice(data, o.members[i-1].valEnd, m.valEnd, nil)
	}
}

func splice(data []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(with))
	out = append(out, data[:from]...)
	out = append(out, with...)
	return append(out, data[to:]...)
}

// serversKeyOf names the key that holds a file's servers: "mcpServers",
// or VS Code's "servers" when only that is there.
func serversKeyOf(top jsonObject) string {
	if _, _, ok := top.find("mcpServers"); !ok {
		if _, _, ok := top.find("servers"); ok {
			return "servers"
		}
	}
	return "mcpServers"
}

// SetServerEntry returns the config data with the server name set to
// entry (one JSON object, as it is to be written), keeping every other
// key, entry, their order and the file's formatting. Empty data starts a
// new file. The result is checked: it must parse, and hold every server
// the old data held plus name.
func SetServerEntry(file string, data []byte, name string, entry []byte) ([]byte, error) {
	if !json.Valid(entry) {
		return nil, fmt.Errorf("the entry for %q is not valid JSON", name)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n  \"mcpServers\": {}\n}\n")
	}
	top, err := scanTop(file, data)
	if err != nil {
		return nil, err
	}
	key := serversKeyOf(top)
	m, _, ok := top.find(key)
	var out []byte
	if !ok {
		out = setMember(data, top, key, []byte("{}"))
		if top, err = scanTop(file, out); err != nil {
			return nil, err
		}
		m, _, _ = top.find(key)
	} else {
		out = data
	}
	servers, err := scanObject(out, m.valStart)
	if err != nil {
		return nil, &ConfigError{File: file, Field: key, Msg: "is not an object: " + err.Error(), Fix: `write it like {"name": {"command": "..."}}`}
	}
	out = setMember(out, servers, name, entry)
	if err := checkEdit(file, data, out, name, true); err != nil {
		return nil, err
	}
	return out, nil
}

// RemoveServerEntry returns the config data without the server name,
// keeping everything else. It fails when there is no such server.
func RemoveServerEntry(file string, data []byte, name string) ([]byte, error) {
	servers, key, err := findServers(file, data)
	if err != nil {
		return nil, err
	}
	_, i, ok := servers.find(name)
	if !ok {
		return nil, &ConfigError{File: file, Field: key + "." + name, Msg: "no such server", Fix: "see howl mcp list for the names"}
	}
	out := removeMember(data, servers, i)
	if err := checkEdit(file, data, out, name, false); err != nil {
		return nil, err
	}
	return out, nil
}

// findServers reads the object that holds a file's servers
// ("mcpServers", or VS Code's "servers") and names its key.
func findServers(file string, data []byte) (jsonObject, string, error) {
	top, err := scanTop(file, data)
	if err != nil {
		return jsonObject{}, "", err
	}
	key := serversKeyOf(top)
	m, _, ok := top.find(key)
	if !ok {
		return jsonObject{}, key, &ConfigError{File: file, Field: key, Msg: "missing: the file has no servers", Fix: "see howl mcp list"}
	}
	servers, err := scanObject(data, m.valStart)
	if err != nil {
		return jsonObject{}, key, &ConfigError{File: file, Field: key, Msg: "is not an object: " + err.Error(), Fix: `write it like {"name": {"command": "..."}}`}
	}
	return servers, key, nil
}

// SetTopLevel returns the config data with the top-level key set to value
// (JSON), everything else kept: howl's own settings (permissions, say).
func SetTopLevel(file string, data []byte, key string, value []byte) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	top, err := scanTop(file, data)
	if err != nil {
		return nil, err
	}
	return setMember(data, top, key, value), nil
}

// scanTop reads the file's top-level object.
func scanTop(file string, data []byte) (jsonObject, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return jsonObject{}, jsonError(file, data, "", err)
	}
	return scanObject(data, 0)
}

// checkEdit makes sure an edit lost nothing: the new data parses as a
// config, and its servers are the old ones with name added (added) or
// taken away.
func checkEdit(file string, old, new []byte, name string, added bool) error {
	anyValue := func(string) (string, bool) { return "", true }
	var before []string
	if len(bytes.TrimSpace(old)) > 0 {
		if p, err := parseServerNames(file, old, anyValue); err == nil {
			before = p
		}
	}
	after, err := parseServerNames(file, new, anyValue)
	if err != nil {
		return fmt.Errorf("the edited config would not load, so %s is left as it was: %w", file, err)
	}
	want := slices.DeleteFunc(slices.Clone(before), func(s string) bool { return s == name })
	if added {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(want, after) {
		return fmt.Errorf("editing %s would change its servers from %v to %v, so it is left as it was: report this", file, before, after)
	}
	return nil
}

func parseServerNames(file string, data []byte, getenv func(string) (string, bool)) ([]string, error) {
	cfg, err := ParseConfig(file, data, getenv)
	if err != nil {
		return nil, err
	}
	return cfg.Names(), nil
}

// EditFileOf edits the config file at path through EditConfigFile and,
// for a project file (origin), keeps its trust when the person's own edit
// is all that changed it (TrustStore.CarryOver): it reports whether the
// file may be used now.
func EditFileOf(path string, origin Origin, ts *TrustStore, edit func(old []byte) ([]byte, error)) (trusted bool, err error) {
	var before, after []byte
	err = EditConfigFile(path, func(old []byte) ([]byte, error) {
		out, err := edit(old)
		before, after = old, out
		return out, err
	})
	if err != nil || origin != OriginProject {
		return err == nil, err
	}
	if ts == nil {
		if ts, err = DefaultTrustStore(); err != nil {
			return false, err
		}
	}
	return ts.CarryOver(TrustKey(path), before, after)
}

// SwitchServerEntry returns the config data with server name switched
// off or on: with no tools, its "disabled" (off writes true, on removes
// the key); with tools (names or globs), its "disabledTools" (off adds
// them, on removes them; an empty list removes the key). Everything else
// stays as written.
func SwitchServerEntry(file string, data []byte, name string, tools []string, off bool) ([]byte, error) {
	servers, key, err := findServers(file, data)
	if err != nil {
		return nil, err
	}
	e, _, ok := servers.find(name)
	if !ok {
		return nil, &ConfigError{File: file, Field: key + "." + name, Msg: "no such server", Fix: "see howl mcp list for the names"}
	}
	// A name written twice is refused, not edited: the loader keeps the
	// last of them, and an edit of the first (which find returns) would
	// say done and change nothing that runs.
	twice := func(field string) error {
		return &ConfigError{File: file, Field: field, Msg: "is written more than once (the last one is what loads)", Fix: "remove all but one of them, then switch it again"}
	}
	if servers.count(name) > 1 {
		return nil, twice(key + "." + name)
	}
	entry, err := scanObject(data, e.valStart)
	if err != nil {
		return nil, &ConfigError{File: file, Field: key + "." + name, Msg: "is not an object: " + err.Error()}
	}
	field, value := "disabled", []byte("true")
	if len(tools) > 0 {
		field = "disabledTools"
	}
	if entry.count(field) > 1 {
		return nil, twice(key + "." + name + "." + field)
	}
	if len(tools) > 0 {
		var list []string
		if f, _, ok := entry.find("disabledTools"); ok {
			if err := json.Unmarshal(data[f.valStart:f.valEnd], &list); err != nil {
				return nil, &ConfigError{File: file, Field: key + "." + name + ".disabledTools", Msg: "is not a list of strings", Fix: `write it like ["write_file", "delete_*"]`}
			}
		}
		list = switchTools(list, tools, off)
		field, off = "disabledTools", len(list) > 0
		value, _ = json.Marshal(list)
	}
	var out []byte
	if off {
		out = setMember(data, entry, field, value)
	} else if _, i, ok := entry.find(field); ok {
		out = removeMember(data, entry, i)
	} else {
		return data, nil
	}
	if _, err := parseServerNames(file, out, func(string) (string, bool) { return "", true }); err != nil {
		return nil, fmt.Errorf("the edited config would not load, so %s is left as it was: %w", file, err)
	}
	return out, nil
}

// switchTools adds tools to the switched-off list (off) or takes them
// out of it.
func switchTools(list, tools []string, off bool) []string {
	list = slices.Clone(list)
	for _, t := range tools {
		has := slices.Contains(list, t)
		switch {
		case off && !has:
			list = append(list, t)
		case !off && has:
			list = slices.DeleteFunc(list, func(s string) bool { return s == t })
		}
	}
	return list
}

// ToolOff reports whether tool matches one of the names or globs in off
// (an entry's "disabledTools").
func ToolOff(off []string, tool string) bool {
	for _, g := range off {
		if g == tool {
			return true
		}
		if ok, _ := path.Match(g, tool); ok {
			return true
		}
	}
	return false
}
