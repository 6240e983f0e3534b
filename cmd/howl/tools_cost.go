package main

import (
	"fmt"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
)

// toolsReport is `howl tools --json`: what the declarations cost on every
// request, in total and per server, then the declarations themselves.
type toolsReport struct {
	Summary          string             `json:"summary"`
	Shape            mcp.FunctionShape  `json:"shape"`
	Configured       mcp.FunctionShape  `json:"configured"`
	Functions        int                `json:"functions"`
	DeclarationBytes int                `json:"declaration_bytes"`
	EstimatedTokens  int                `json:"estimated_tokens"`
	Tokenizer        string             `json:"tokenizer"`
	Servers          []serverCost       `json:"servers"`
	Declarations     []mcp.FunctionDecl `json:"declarations"`
}

// serverCost is one server's share: its own functions per-server, what
// its name adds to the enums in the shared set.
type serverCost struct {
	Server          string   `json:"server"`
	Functions       []string `json:"functions"`
	Bytes           int      `json:"bytes"`
	EstimatedTokens int      `json:"estimated_tokens"`
}

// declarationCosts measures decls, declared for the ready servers fs in
// configured shape, with the tokenizer of model (an estimate unless it
// is an OpenAI model).
func declarationCosts(configured mcp.FunctionShape, fs []mcp.Features, decls []mcp.FunctionDecl, model string) toolsReport {
	tk := llm.TokenizerFor(model)
	countTokens := func(b []byte) int { return tk.Count(string(b)) }
	countBytes := func(b []byte) int { return len(b) }
	js := mcp.DeclarationJSON(decls)
	rep := toolsReport{Shape: configured.For(len(fs)), Configured: configured, Functions: len(decls),
		DeclarationBytes: len(js), EstimatedTokens: countTokens(js), Tokenizer: tk.Label(), Servers: []serverCost{}, Declarations: decls}
	if rep.Declarations == nil {
		rep.Declarations = []mcp.FunctionDecl{}
	}
	tokens := mcp.ServerShares(configured, fs, countTokens)
	for i, b := range mcp.ServerShares(configured, fs, countBytes) {
		rep.Servers = append(rep.Servers, serverCost{Server: b.Server, Functions: b.Functions, Bytes: b.Cost, EstimatedTokens: tokens[i].Cost})
	}
	rep.Summary = fmt.Sprintf("%d functions (%s) for %d servers: %d bytes, %d tokens by %s, on every request",
		rep.Functions, rep.Shape, len(fs), rep.DeclarationBytes, rep.EstimatedTokens, tk.Label())
	return rep
}
