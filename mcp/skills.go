package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/howl-mcp/howl/render"
)

// Skills over MCP (SEP-2640, the io.modelcontextprotocol/skills extension):
// a server that declares the extension lists skills with skills/list. Each
// entry carries the skill's SKILL.md frontmatter and a manifest of its files
// (URI, sha256 digest, size); the files are ordinary resources. howl lists
// the entries as the fifth kind of the catalog and reads a skill's files
// only when the person or the model loads the skill (never on listing),
// and checks each file against the entry before it is used: its size, its
// digest and, for SKILL.md, its frontmatter field by field.

// SkillsExtension is the extension's identifier in a server's capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

// The limits of one skill every host must accept (SEP-2640 "Limits"); a
// skill over them is declined, saying so, before any of its files is read.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// The bounds of SKILL.md's frontmatter, which howl parses to check it
// against the listing. A YAML alias costs a few bytes but stands for its
// anchor's whole value, and the value is copied out wherever the alias is
// a mapping key, a merge (<<) or turned into JSON: aliases of aliases,
// nested a few levels ("billion laughs"), would copy a few hundred bytes
// out to gigabytes. So the frontmatter is bounded in bytes before it is
// parsed, and in nodes, each alias counted as its anchor's nodes, before
// any value is decoded. Ordinary frontmatter (a name, a description, a few
// fields, an anchor used once or twice) is far under both.
const (
	MaxFrontmatterBytes = 64 << 10
	MaxFrontmatterNodes = 10_000
)

// SkillFile is one file of a skill, as its entry lists it.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// SkillEntry is what a skills/list entry says beyond a catalog item's
// name and description.
type SkillEntry struct {
	// Frontmatter is the SKILL.md frontmatter as the server rendered it.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Files lists every file of the skill, SKILL.md included; Dynamic says
	// the server publishes no digests (its content is generated).
	Files   []SkillFile `json:"files,omitempty"`
	Dynamic bool        `json:"dynamic,omitempty"`
}

var digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// parseSkill reads one skills/list (or skills/get) entry. An entry without
// a complete, well-formed manifest is invalid: hosts must not load it.
func parseSkill(server string, raw json.RawMessage) (CatalogItem, error) {
	var e struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return CatalogItem{}, fmt.Errorf("not a valid skill entry: %v", err)
	}
	var fm struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if e.URI == "" {
		return CatalogItem{}, errors.New("a skill without a uri")
	}
	if json.Unmarshal(e.Frontmatter, &fm) != nil || fm.Name == "" || fm.Description == "" {
		return CatalogItem{}, fmt.Errorf("skill %q: its frontmatter lacks a name or a description", e.URI)
	}
	if path.Base(skillRoot(e.URI)) != fm.Name {
		return CatalogItem{}, fmt.Errorf("skill %q: its uri does not end in its name %q", e.URI, fm.Name)
	}
	it := CatalogItem{Kind: KindSkill, Server: server, ID: e.URI, URI: e.URI, Name: fm.Name, Description: fm.Description, MIMEType: "text/markdown",
		Skill: &SkillEntry{Frontmatter: e.Frontmatter}}
	if string(e.Resources) == `"dynamic"` {
		it.Skill.Dynamic = true
		return it, nil
	}
	if err := json.Unmarshal(e.Resources, &it.Skill.Files); err != nil || it.Skill.Files == nil {
		return CatalogItem{}, fmt.Errorf("skill %q: resources is neither a list of files nor \"dynamic\"", e.URI)
	}
	has := false
	for _, f := range it.Skill.Files {
		if f.URI == "" || !digestRE().MatchString(f.Digest) || f.Size < 0 {
			return CatalogItem{}, fmt.Errorf("skill %q: file %q has no uri, a digest not sha256:<64 hex> or a negative size", e.URI, render.Ellipsize(f.URI, 120))
		}
		has = has || f.URI == e.URI
	}
	if !has {
		return CatalogItem{}, fmt.Errorf("skill %q: its files do not list its SKILL.md", e.URI)
	}
	total := skillBytes(it.Skill)
	it.Size = &total
	return it, nil
}

// skillRoot is a skill's directory: its SKILL.md URI without "/SKILL.md".
func skillRoot(uri string) string { return strings.TrimSuffix(uri, "/SKILL.md") }

// FindSkill finds a skill by its URI or its name. Names are labels, not
// identifiers: two skills of one server may share one, and then the
// caller must say which by URI.
func FindSkill(cat *Catalog, ref string) (CatalogItem, error) {
	if it, ok := cat.Lookup(KindSkill, ref); ok {
		return it, nil
	}
	var same []CatalogItem
	for _, it := range cat.Items {
		if it.Kind == KindSkill && it.Name == ref {
			same = append(same, it)
		}
	}
	switch len(same) {
	case 1:
		return same[0], nil
	case 0:
		return CatalogItem{}, notFound(cat, KindSkill, ref)
	}
	uris := make([]string, len(same))
	for i, it := range same {
		uris[i] = it.URI
	}
	sort.Strings(uris)
	return CatalogItem{}, fmt.Errorf("%d skills on %s are named %q: say which by its uri (%s)", len(same), cat.Server, ref, strings.Join(uris, ", "))
}

// SkillCheckError is a skill's file that does not match the skill's
// listing (size, digest or frontmatter), or cannot be checked: the server's
// fault, and the file is not used.
type SkillCheckError struct{ Msg string }

func (e *SkillCheckError) Error() string { return render.BoundMessage(e.Msg) }

// SkillRead is what loading a skill, or reading one of its files, gives:
// what was checked first, then the file's content through the content
// policy (paged text; binary spilled to a file).
type SkillRead struct {
	// Verified says what the file was checked against.
	Verified string `json:"verified"`
	Skill    string `json:"skill"`
	Server   string `json:"server"`
	URI      string `json:"uri"`
	// Files, when SKILL.md was loaded, are the skill's other files: read
	// them with the same function and "file".
	Files []SkillFile `json:"files,omitempty"`
	Usage string      `json:"usage,omitempty"`
	// Content is the file as a read of it returns it.
	Content json.RawMessage `json:"content"`
}

// LoadSkill loads a skill of server (file "") or reads one of its files
// (a path relative to the skill's directory, or the file's URI): the file
// is read, checked against the skill's entry, and rendered through the
// content policy. A file that does not match is an error naming it, and
// is not used. A skill missing from the listing is looked up by URI with
// skills/get.
func (r *Runtime) LoadSkill(ctx context.Context, server, ref, file string, opts render.PageOptions) (SkillRead, error) {
	conn, err := r.Conn(server)
	if err != nil {
		return SkillRead{}, err
	}
	if !conn.features.Skills {
		return SkillRead{}, fmt.Errorf("server %s does not offer skills (it does not declare the %s extension)", server, SkillsExtension)
	}
	cat, err := r.Catalog(ctx, server, false)
	if err != nil {
		return SkillRead{}, err
	}
	it, err := FindSkill(cat, ref)
	if err != nil && strings.Contains(ref, "://") {
		it, err = conn.getSkill(ctx, ref)
	}
	if err != nil {
		return SkillRead{}, err
	}
	e := it.Skill
	if n, total := len(e.Files), skillBytes(e); n > MaxSkillFiles || total > MaxSkillBytes {
		return SkillRead{}, fmt.Errorf("skill %q on %s is declined: %d files, %s (howl loads up to %d files, %s: MaxSkillFiles, MaxSkillBytes)",
			it.Name, server, n, render.HumanBytes(total), MaxSkillFiles, render.HumanBytes(MaxSkillBytes))
	}
	target, listed, err := skillTarget(it, file)
	if err != nil {
		return SkillRead{}, err
	}
	contents, err := tracked(r, ctx, server, "resources/read", "resources/read", func(ctx context.Context) ([]json.RawMessage, error) {
		return conn.ReadRaw(ctx, target)
	})
	if err != nil {
		return SkillRead{}, err
	}
	data, err := contentBytes(contents)
	if err != nil {
		return SkillRead{}, &SkillCheckError{fmt.Sprintf("skill %q on %s: %s: %v: not used", it.Name, server, target, err)}
	}
	out := SkillRead{Skill: it.Name, Server: server, URI: target, Verified: "nothing: the server publishes no digests for this skill (dynamic); its content is unverified"}
	if listed != nil {
		if err := checkSkillFile(*listed, data); err != nil {
			return SkillRead{}, &SkillCheckError{fmt.Sprintf("skill %q on %s: %s %v: not used (changed or tampered with since it was listed; list the skills again)", it.Name, server, target, err)}
		}
		out.Verified = fmt.Sprintf("size %d and %s match the skill's listing", listed.Size, listed.Digest)
	}
	if target == it.URI {
		if err := checkFrontmatter(data, e.Frontmatter); err != nil {
			return SkillRead{}, &SkillCheckError{fmt.Sprintf("skill %q on %s: %s: %v: not loaded", it.Name, server, target, err)}
		}
		out.Verified += "; its frontmatter matches field by field"
		for _, f := range e.Files {
			if f.URI != it.URI {
				out.Files = append(out.Files, f)
			}
		}
		if len(out.Files) > 0 {
			out.Usage = fmt.Sprintf("read a file of the skill with mcp_read_%s {\"skill\": %q, \"file\": \"<path under %s/>\"}", FunctionSuffix(server), it.URI, skillRoot(it.URI))
		}
	}
	store, err := r.spillStore()
	if err != nil {
		return SkillRead{}, err
	}
	res, err := render.ReadContents(store, server, contents, opts)
	if err != nil {
		return SkillRead{}, err
	}
	if out.Content, err = render.Marshal(res); err != nil {
		return SkillRead{}, err
	}
	return out, nil
}

// skillBytes is the total size of a skill's listed files, stopping at
// math.MaxInt64: the sizes are the server's word, and two listed near 2^63
// would otherwise wrap the total to a few bytes and pass MaxSkillBytes.
func skillBytes(e *SkillEntry) int64 {
	var n int64
	for _, f := range e.Files {
		if f.Size > math.MaxInt64-n {
			return math.MaxInt64
		}
		n += f.Size
	}
	return n
}

// skillTarget resolves the file to read: SKILL.md when file is empty, else
// a path under the skill's directory or a URI. A listed skill's file must
// be in its manifest (an unlisted one is a change to the skill).
func skillTarget(it CatalogItem, file string) (string, *SkillFile, error) {
	target := it.URI
	if file != "" {
		target = file
		if !strings.Contains(file, "://") {
			clean := path.Clean("/" + file)
			if clean == "/" || slices.Contains(strings.Split(file, "/"), "..") {
				return "", nil, fmt.Errorf("file %q of skill %q: give a path under its directory, like references/GUIDE.md", file, it.Name)
			}
			target = skillRoot(it.URI) + clean
		}
	}
	if it.Skill.Dynamic {
		if !strings.HasPrefix(target, skillRoot(it.URI)+"/") {
			return "", nil, fmt.Errorf("%q is not a file of skill %q (%s/...)", target, it.Name, skillRoot(it.URI))
		}
		return target, nil, nil
	}
	for i, f := range it.Skill.Files {
		if f.URI == target {
			return target, &it.Skill.Files[i], nil
		}
	}
	var paths []string
	for _, f := range it.Skill.Files {
		paths = append(paths, strings.TrimPrefix(f.URI, skillRoot(it.URI)+"/"))
	}
	return "", nil, fmt.Errorf("skill %q lists no file %q: its files are %s", it.Name, render.Ellipsize(file, 120), strings.Join(paths, ", "))
}

// contentBytes is the raw bytes of a one-item resources/read answer.
func contentBytes(contents []json.RawMessage) ([]byte, error) {
	if len(contents) != 1 {
		return nil, fmt.Errorf("the read returned %d items, want the one file", len(contents))
	}
	var c struct {
		Text *string `json:"text"`
		Blob *string `json:"blob"`
	}
	if err := json.Unmarshal(contents[0], &c); err != nil {
		return nil, fmt.Errorf("the read's item is not an object: %v", err)
	}
	switch {
	case c.Text != nil && c.Blob == nil:
		return []byte(*c.Text), nil
	case c.Blob != nil && c.Text == nil:
		return base64.StdEncoding.DecodeString(*c.Blob)
	}
	return nil, errors.New("the read's item has both or neither of text and blob")
}

// checkSkillFile compares a file's bytes with its manifest entry: the size
// first (a different length fails whatever the digest), then the digest.
func checkSkillFile(f SkillFile, data []byte) error {
	if int64(len(data)) != f.Size {
		return fmt.Errorf("is %d bytes, its listing says %d", len(data), f.Size)
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest {
		return fmt.Errorf("has digest %s, its listing says %s", got, f.Digest)
	}
	return nil
}

// checkFrontmatter compares SKILL.md's YAML frontmatter with the entry's,
// field by field: any field added, missing or different fails the load.
func checkFrontmatter(skillMD []byte, listed json.RawMessage) error {
	var got map[string]any
	if err := parseFrontmatter(skillMD, &got); err != nil {
		return err
	}
	var want map[string]any
	if err := json.Unmarshal(listed, &want); err != nil {
		return fmt.Errorf("the listed frontmatter is not an object: %v", err)
	}
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g, inFile := got[k]
		w, inList := want[k]
		switch {
		case !inFile:
			return fmt.Errorf("its frontmatter has no field %q, which the listing has", k)
		case !inList:
			return fmt.Errorf("its frontmatter has a field %q the listing does not have", k)
		case !reflect.DeepEqual(g, w):
			return fmt.Errorf("its frontmatter field %q is %s, the listing says %s", k, quoteJSON(g), quoteJSON(w))
		}
	}
	return nil
}

// parseFrontmatter reads the YAML between SKILL.md's opening "---" line
// and the next one, normalized to what JSON makes of it.
func parseFrontmatter(md []byte, v *map[string]any) error {
	md = bytes.TrimPrefix(md, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(md, []byte("---\n"))
	if !ok {
		rest, ok = bytes.CutPrefix(md, []byte("---\r\n"))
	}
	if !ok {
		return errors.New("it does not begin with YAML frontmatter (a --- line)")
	}
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return errors.New("its frontmatter never ends (no closing --- line)")
	}
	src := rest[:end+1]
	if len(src) > MaxFrontmatterBytes {
		return fmt.Errorf("its frontmatter is %s, over the %s howl parses (MaxFrontmatterBytes): keep the frontmatter to the skill's fields and put longer text in the body",
			render.HumanBytes(int64(len(src))), render.HumanBytes(MaxFrontmatterBytes))
	}
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return fmt.Errorf("its frontmatter is not valid YAML: %s", render.Ellipsize(err.Error(), 200))
	}
	if n := expandedNodes(f, MaxFrontmatterNodes); n > MaxFrontmatterNodes {
		return fmt.Errorf("its frontmatter expands to over %d YAML nodes, each alias counted as its anchor's (MaxFrontmatterNodes): aliases of aliases multiply; write the values out or use fewer aliases", MaxFrontmatterNodes)
	}
	var y any
	if err := yaml.Unmarshal(src, &y); err != nil {
		return fmt.Errorf("its frontmatter is not valid YAML: %s", render.Ellipsize(err.Error(), 200))
	}
	j, err := json.Marshal(y)
	if err != nil {
		return fmt.Errorf("its frontmatter has values JSON cannot hold: %v", err)
	}
	if err := json.Unmarshal(j, v); err != nil || *v == nil {
		return errors.New("its frontmatter is not a mapping of fields")
	}
	return nil
}

// expandedNodes counts the nodes of a parsed YAML file as its decoding
// would meet them: an alias counts as its anchor's nodes (each anchor
// counted once, when it is defined, as YAML defines it before any alias
// to it). The count stops growing past budget, so on aliases nested to
// multiply it costs one pass over the file whatever they would expand to.
func expandedNodes(f *ast.File, budget int) int {
	c := &nodeCounter{budget: budget, anchors: map[string]int{}}
	for _, doc := range f.Docs {
		ast.Walk(c, doc)
	}
	return c.n
}

type nodeCounter struct {
	n, budget int
	anchors   map[string]int
}

func (c *nodeCounter) add(k int) { c.n = min(c.n+k, c.budget+1) }

func (c *nodeCounter) Visit(node ast.Node) ast.Visitor {
	if c.n > c.budget {
		return nil
	}
	switch n := node.(type) {
	case *ast.AliasNode:
		c.add(max(c.anchors[n.Value.String()], 1))
		return nil
	case *ast.AnchorNode:
		value := &nodeCounter{budget: c.budget, anchors: c.anchors}
		ast.Walk(value, n.Value)
		c.anchors[n.Name.GetToken().Value] = value.n
		c.add(value.n)
		return nil
	}
	c.add(1)
	return c
}

func quoteJSON(v any) string {
	b, _ := json.Marshal(v)
	return render.Ellipsize(string(b), 120)
}

// getSkill asks the server for one skill's entry by URI (skills/get).
func (c *Conn) getSkill(ctx context.Context, uri string) (CatalogItem, error) {
	raw, err := c.request(ctx, "skills/get", map[string]any{"uri": uri})
	if err != nil {
		return CatalogItem{}, err
	}
	var res struct {
		Skill json.RawMessage `json:"skill"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Skill) == 0 {
		return CatalogItem{}, fmt.Errorf("skills/get %s: the answer has no skill entry", uri)
	}
	return parseSkill(c.name, res.Skill)
}
