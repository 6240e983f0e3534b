package demo

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The demo's skills (SEP-2640, the io.modelcontextprotocol/skills
// extension): two skills, each a SKILL.md with one supporting file, under
// skill://<name>/. mcp-go serves no skills, so the demo answers
// skills/list, skills/get and the reads of skill:// files itself, before a
// message reaches mcp-go (stdio and HTTP alike). The skill files are not in
// resources/list: a skill's listing is its manifest.

// SkillsExtension is the extension's identifier in the capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

//go:embed skills
var skillFS embed.FS

type skillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
	data   []byte
}

type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []skillFile    `json:"resources"`
}

// demoSkills are built once from the embedded files.
var demoSkills = sync.OnceValue(func() []skillEntry {
	var out []skillEntry
	dirs, _ := fs.ReadDir(skillFS, "skills")
	for _, d := range dirs {
		e := skillEntry{URI: "skill://" + d.Name() + "/SKILL.md"}
		_ = fs.WalkDir(skillFS, "skills/"+d.Name(), func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			data, _ := skillFS.ReadFile(p)
			sum := sha256.Sum256(data)
			rel := strings.TrimPrefix(p, "skills/"+d.Name()+"/")
			e.Resources = append(e.Resources, skillFile{URI: "skill://" + d.Name() + "/" + rel, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(data), data: data})
			if rel == "SKILL.md" {
				e.Frontmatter = frontmatter(data)
			}
			return nil
		})
		sort.Slice(e.Resources, func(i, j int) bool { return e.Resources[i].URI < e.Resources[j].URI })
		out = append(out, e)
	}
	return out
})

// frontmatter is a SKILL.md's YAML frontmatter as JSON values.
func frontmatter(md []byte) map[string]any {
	rest, _ := bytes.CutPrefix(md, []byte("---\n"))
	end := bytes.Index(rest, []byte("\n---"))
	var y any
	if end < 0 || yaml.Unmarshal(rest[:end+1], &y) != nil {
		panic("demo skill with bad frontmatter: " + string(md[:min(len(md), 80)]))
	}
	j, _ := json.Marshal(y)
	var m map[string]any
	_ = json.Unmarshal(j, &m)
	return m
}

// offersSkills marks the servers New made, which serve the skills.
var offersSkills sync.Map // *server.MCPServer -> struct{}

// skillAnswer answers a message that is about skills (skills/list,
// skills/get, or a resources/read of a skill file) on a server that
// offers them; ok is false for any other message.
func skillAnswer(s *server.MCPServer, msg []byte) (resp []byte, ok bool) {
	if _, on := offersSkills.Load(s); !on {
		return nil, false
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			URI    string `json:"uri"`
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 {
		return nil, false
	}
	result := func(v map[string]any) ([]byte, bool) {
		v["resultType"] = "complete"
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": v})
		return b, true
	}
	invalid := func(format string, a ...any) ([]byte, bool) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": mcp.INVALID_PARAMS, "message": fmt.Sprintf(format, a...)}})
		return b, true
	}
	switch req.Method {
	case "skills/list":
		return result(map[string]any{"skills": demoSkills(), "ttlMs": 0, "cacheScope": "public"})
	case "skills/get":
		for _, e := range demoSkills() {
			if e.URI == req.Params.URI {
				return result(map[string]any{"skill": e, "ttlMs": 0, "cacheScope": "public"})
			}
		}
		return invalid("no skill %q: skills/list lists them", req.Params.URI)
	case "resources/read":
		if !strings.HasPrefix(req.Params.URI, "skill://") {
			return nil, false
		}
		for _, e := range demoSkills() {
			for _, f := range e.Resources {
				if f.URI == req.Params.URI {
					mime := "text/markdown"
					if path.Ext(f.URI) != ".md" {
						mime = "text/plain"
					}
					return result(map[string]any{"contents": []map[string]any{{"uri": f.URI, "mimeType": mime, "text": string(f.data)}}})
				}
			}
		}
		return invalid("no skill file %q", req.Params.URI)
	}
	return nil, false
}

// skillsHTTP answers skill messages posted to h's endpoint; others go to h.
func skillsHTTP(s *server.MCPServer, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := readBody(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		if resp, ok := skillAnswer(s, body); ok {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(resp)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// maxRequestBytes bounds the body skillsHTTP reads to look at a message.
const maxRequestBytes = 64 << 20

// readBody reads a request's body and puts it back for the next handler.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > maxRequestBytes {
		return nil, fmt.Errorf("request over %d bytes (maxRequestBytes)", maxRequestBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}
