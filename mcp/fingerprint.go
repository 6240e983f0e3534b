package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ToolDefinition is what a person approves when they allow a tool: its
// name, description, annotations and input schema. A server that changes
// any of them after the approval (a known MCP attack: a harmless
// description swapped for instructions, an argument added) has a tool the
// person has not approved.
type ToolDefinition struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Annotations *ToolAnnotations `json:"annotations"`
	InputSchema json.RawMessage  `json:"inputSchema"`
}

// DefinitionOf is the tool's definition, its schema canonicalized (keys
// sorted, no insignificant space) so that the same schema always hashes
// the same.
func DefinitionOf(it CatalogItem) ToolDefinition {
	return ToolDefinition{Name: it.Name, Description: it.Description, Annotations: it.Annotations, InputSchema: canonicalJSON(it.Schema)}
}

// Fingerprint is the SHA-256 of the definition's canonical JSON.
func (d ToolDefinition) Fingerprint() string {
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalJSON re-encodes raw with object keys sorted; raw that does not
// parse is kept as it is (it still hashes, and any change to it shows).
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
