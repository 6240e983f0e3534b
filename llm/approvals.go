package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
)

// Bounds of the approved-tools file.
const (
	// MaxApprovedDefinition is the largest definition kept for showing
	// what changed; a larger one keeps only its fingerprint.
	MaxApprovedDefinition = 64 << 10
	// MaxApprovalsFileBytes bounds the file read back.
	MaxApprovalsFileBytes = 16 << 20
	// MaxChangeLines bounds the lines of a change shown to a person.
	MaxChangeLines = 60
)

// ApprovedTool is the definition a person approved for a tool.
type ApprovedTool struct {
	SHA256 string `json:"sha256"`
	// Definition is what was approved (omitted when over
	// MaxApprovedDefinition): what a change is shown against.
	Definition *mcp.ToolDefinition `json:"definition,omitempty"`
	Approved   time.Time           `json:"approved"`
}

// Approvals pins the definition of every tool a person allowed by name
// (an "always allow", a rule in their config, a session grant): when the
// server changes the tool's name, description, annotations or input
// schema, the approval no longer applies, and the person sees what
// changed. Saved approvals live in one JSON file in howl's data dir
// (approved-tools.json); session ones in memory. Safe for concurrent use.
type Approvals struct {
	path    string
	mu      sync.Mutex
	loaded  bool
	saved   map[string]ApprovedTool
	session map[string]ApprovedTool
}

// NewApprovals returns approvals kept at path ("" keeps them in memory only).
func NewApprovals(path string) *Approvals {
	return &Approvals{path: path, session: map[string]ApprovedTool{}}
}

// DefaultApprovals keeps them in mcp.DataDir()/approved-tools.json.
func DefaultApprovals() (*Approvals, error) {
	d, err := mcp.DataDir()
	if err != nil {
		return nil, err
	}
	return NewApprovals(filepath.Join(d, "approved-tools.json")), nil
}

// Path is the file saved approvals are kept in ("" for none).
func (a *Approvals) Path() string { return a.path }

// ApprovalState is how a tool's definition compares with its approval.
type ApprovalState int

const (
	// NotApproved: no definition was approved for the tool.
	NotApproved ApprovalState = iota
	// Unchanged: the tool is as approved.
	Unchanged
	// Changed: the server changed the tool since it was approved.
	Changed
)

// Change is what changed in a tool since its approval.
type Change struct {
	Approved time.Time
	// Fields are the parts that changed: name, description, annotations,
	// inputSchema.
	Fields []string
	// Diff is a unified diff of the definitions (empty when the approved
	// one was too large to keep), at most MaxChangeLines lines.
	Diff []string
}

// Summary is the change in one line: "description, inputSchema changed
// since you allowed it on 2026-12-01".
func (c Change) Summary() string {
	return fmt.Sprintf("%s changed since you allowed it on %s", strings.Join(c.Fields, ", "), c.Approved.Local().Format("2006-01-02"))
}

func approvalKey(it mcp.CatalogItem) string { return it.Server + ":" + it.Name }

// load reads the file once; a missing file is no approvals.
func (a *Approvals) load() error {
	if a.loaded {
		return nil
	}
	a.saved = map[string]ApprovedTool{}
	if a.path == "" {
		a.loaded = true
		return nil
	}
	f, err := os.Open(a.path)
	if errors.Is(err, fs.ErrNotExist) {
		a.loaded = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading approved tools %s: %w", a.path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxApprovalsFileBytes+1))
	if err != nil {
		return fmt.Errorf("reading approved tools %s: %w", a.path, err)
	}
	if len(data) > MaxApprovalsFileBytes {
		return fmt.Errorf("approved tools %s is over %d bytes (MaxApprovalsFileBytes): delete it; howl asks again for each tool", a.path, MaxApprovalsFileBytes)
	}
	if err := json.Unmarshal(data, &a.saved); err != nil {
		return fmt.Errorf("approved tools %s is not valid JSON (%v): delete it; howl asks again for each tool", a.path, err)
	}
	a.loaded = true
	return nil
}

// Check compares the tool with its approval: the session's if there is
// one, else the saved one.
func (a *Approvals) Check(it mcp.CatalogItem) (ApprovalState, Change, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(); err != nil {
		return NotApproved, Change{}, err
	}
	key := approvalKey(it)
	ap, ok := a.session[key]
	if !ok {
		ap, ok = a.saved[key]
	}
	if !ok {
		return NotApproved, Change{}, nil
	}
	def := mcp.DefinitionOf(it)
	if def.Fingerprint() == ap.SHA256 {
		return Unchanged, Change{}, nil
	}
	return Changed, changeOf(ap, def), nil
}

// Approve records the tool's current definition as approved: for this
// run, or (save) in the file too.
func (a *Approvals) Approve(it mcp.CatalogItem, save bool, now time.Time) error {
	def := mcp.DefinitionOf(it)
	ap := ApprovedTool{SHA256: def.Fingerprint(), Approved: now.UTC()}
	if b, _ := json.Marshal(def); len(b) <= MaxApprovedDefinition {
		ap.Definition = &def
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(); err != nil {
		return err
	}
	key := approvalKey(it)
	a.session[key] = ap
	if !save || a.path == "" {
		return nil
	}
	a.saved[key] = ap
	data, err := indented(a.saved)
	if err != nil {
		return err
	}
	if err := mcp.WriteFileAtomic(a.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the approval of %s to %s: %w", key, a.path, err)
	}
	return nil
}

// changeOf compares an approval with the current definition.
func changeOf(ap ApprovedTool, now mcp.ToolDefinition) Change {
	c := Change{Approved: ap.Approved}
	if ap.Definition == nil {
		c.Fields = []string{"the definition"}
		return c
	}
	was := *ap.Definition
	if was.Name != now.Name {
		c.Fields = append(c.Fields, "name")
	}
	if was.Description != now.Description {
		c.Fields = append(c.Fields, "description")
	}
	if a, b := mustJSON(was.Annotations), mustJSON(now.Annotations); a != b {
		c.Fields = append(c.Fields, "annotations")
	}
	if compact(was.InputSchema) != compact(now.InputSchema) {
		c.Fields = append(c.Fields, "inputSchema")
	}
	if len(c.Fields) == 0 {
		c.Fields = []string{"the definition"}
	}
	diff := udiff.Unified("approved", "now", prettyDefinition(was), prettyDefinition(now))
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	if len(lines) > 2 && strings.HasPrefix(lines[0], "---") {
		lines = lines[2:] // the file header says nothing here
	}
	if len(lines) > MaxChangeLines {
		lines = append(lines[:MaxChangeLines:MaxChangeLines], fmt.Sprintf("… %d more lines of difference", len(lines)-MaxChangeLines))
	}
	c.Diff = lines
	return c
}

// compact is raw without insignificant space (the saved definition is
// indented in the file).
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// prettyDefinition is the definition as indented JSON, one field a line
// group, for a line diff a person can read.
func prettyDefinition(d mcp.ToolDefinition) string {
	b, _ := indented(d)
	return string(b) + "\n"
}

// indented is v as indented JSON, or on one line where a server's schema
// nests deep enough that indenting would multiply its size
// (render.IndentJSON): a 64 KiB schema thousands deep indents to hundreds
// of megabytes, in the file and in the diff.
func indented(v any) ([]byte, error) {
	compact, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	_, err = render.IndentJSON(&b, compact, "", "  ")
	return b.Bytes(), err
}
