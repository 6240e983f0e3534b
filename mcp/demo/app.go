package demo

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/howl-mcp/howl/assets"
)

// diceAppMIME is the MCP Apps (io.modelcontextprotocol/ui) resource type.
const diceAppMIME = "text/html;profile=mcp-app"

// DiceMaxSides is the most sides roll_dice accepts.
const DiceMaxSides = 1000

// addDiceApp registers the demo's MCP App: the roll_dice tool, whose
// _meta.ui.resourceUri names a small HTML interface that shows the roll,
// rolls again through the host and posts a message to the chat.
func (d *demoServer) addDiceApp() {
	tool := mcp.NewTool(DiceTool,
		mcp.WithToolTitle("Roll a die (app)"),
		mcp.WithDescription("Rolls a die with the given number of sides. It has an MCP App: in howl, Enter on this tool in the TUI, or `howl app demo roll_dice`, opens it in the browser."),
		mcp.WithNumber("sides", mcp.Description(fmt.Sprintf("How many sides the die has (2 to %d, default 6).", DiceMaxSides))),
		mcp.WithBoolean("autoplay", mcp.Description("The app rolls once more and posts the result to the chat by itself (howl's tests use it).")),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), IdempotentHint: ptr(false), OpenWorldHint: ptr(false)}),
	)
	tool.Meta = mcp.NewMetaFromMap(map[string]any{"ui": map[string]any{"resourceUri": DiceAppURI}})
	d.srv.AddTools(server.ServerTool{Tool: tool, Handler: rollDice})
	d.srv.AddResources(server.ServerResource{
		Resource: mcp.Resource{
			URI: DiceAppURI, Name: "dice.html", Title: "Dice (MCP App)", MIMEType: diceAppMIME,
			Size:        ptr(assetSize("dice-app.html")),
			Description: "The interface of the roll_dice tool: HTML that a host such as howl shows in a sandboxed frame.",
			Meta:        mcp.NewMetaFromMap(map[string]any{"ui": map[string]any{"csp": map[string]any{}}}),
		},
		Handler: readDiceApp,
	})
}

func readDiceApp(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	html, err := fs.ReadFile(assets.Demo, "demo/dice-app.html")
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: DiceAppURI, MIMEType: diceAppMIME, Text: string(html),
		// No network at all: the app needs none.
		Meta: map[string]any{"ui": map[string]any{"csp": map[string]any{}, "prefersBorder": true}},
	}}, nil
}

func rollDice(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	sides := req.GetInt("sides", 6)
	if sides < 2 || sides > DiceMaxSides {
		return mcp.NewToolResultError(fmt.Sprintf("roll_dice: sides is %d; give 2 to %d (DiceMaxSides)", sides, DiceMaxSides)), nil
	}
	roll := 1 + rand.IntN(sides)
	return mcp.NewToolResultStructured(map[string]any{"roll": roll, "sides": sides}, fmt.Sprintf("rolled %d on a d%d", roll, sides)), nil
}
