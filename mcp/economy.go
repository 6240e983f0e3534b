package mcp

import (
	"encoding/json"

	"github.com/howl-mcp/howl/render"
)

// Economy compares what a model carries for one server: howl's gated
// meta-function declarations against one declaration per tool.
type Economy struct {
	Server        string  `json:"server"`
	Tools         int     `json:"tools"`
	MetaFunctions int     `json:"meta_functions"`
	MetaBytes     int     `json:"meta_bytes"`
	PerToolBytes  int     `json:"per_tool_bytes"`
	Ratio         float64 `json:"ratio"`
}

// ContextEconomy measures the declaration bytes, serialized as a model
// provider receives them (a JSON array of name, description, parameters).
func ContextEconomy(f Features, cat *Catalog) Economy {
	meta := DeclarationsFor(f)
	mb, _ := render.Marshal(meta)
	var perTool []FunctionDecl
	for _, it := range cat.Of(KindTool) {
		params := it.Schema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		perTool = append(perTool, FunctionDecl{Name: it.ID, Description: it.Description, Parameters: params})
	}
	pb, _ := render.Marshal(perTool)
	if perTool == nil {
		pb = []byte("[]")
	}
	e := Economy{Server: f.Name, Tools: len(perTool), MetaFunctions: len(meta), MetaBytes: len(mb), PerToolBytes: len(pb)}
	if e.MetaBytes > 0 {
		e.Ratio = float64(e.PerToolBytes) / float64(e.MetaBytes)
	}
	return e
}
