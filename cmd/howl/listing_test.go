package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestListingIsWrittenAnItemAtATimeExactlyAsWhole(t *testing.T) {
	size := int64(12)
	items := []*mcp.CatalogItem{
		{Kind: mcp.KindTool, Server: "s", ID: "echo", Name: "echo", Description: "line\nbreak \u009b and \u202e", Schema: json.RawMessage(`{"type":"object","properties":{"m":{"type":"string"}}}`)},
		{Kind: mcp.KindResource, Server: "s", ID: "demo://x", Name: "x", URI: "demo://x", MIMEType: "text/plain", Size: &size, Audience: []string{"user"}},
		{Kind: mcp.KindPrompt, Server: "s", ID: "p", Name: "p <&>", Arguments: []mcp.PromptArgument{{Name: "a", Required: true}}},
	}
	one := 1
	servers := []serverListing{{Name: "s", State: mcp.StateReady, Counts: map[mcp.Kind]*int{mcp.KindTool: &one, mcp.KindPrompt: nil}, Warnings: []mcp.Warning{{Kind: mcp.KindTool, Reason: "x\x7f"}}}}
	for _, l := range []listing{
		{Coverage: "3 items", Servers: servers, Items: items},
		{Coverage: "0 items", Servers: servers, Items: []*mcp.CatalogItem{}},
		{Coverage: "0 items", Items: []*mcp.CatalogItem{}},
	} {
		var whole, streamed bytes.Buffer
		if err := writeJSON(&whole, l); err != nil {
			t.Fatal(err)
		}
		if err := writeListing(&streamed, l); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("streamed:\n%s\nwhole:\n%s", streamed.String(), whole.String())
		}
	}
}
