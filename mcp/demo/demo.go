// Package demo is howl's embedded demo MCP server: what a newcomer sees when
// howl runs without a config (howl spawns itself as `howl demo-server` over
// stdio), and what howl's tests run against.
//
// It offers every kind of thing an MCP server can: tools (text, structured
// output, images, links, embedded resources, errors, progress and
// cancellation, a destructive-looking one that harms nothing), resources
// spread over several pages (a 2 MiB log, JSON, Markdown, Go source, a PNG, a
// mislabeled blob, annotated items, notes), two resource templates, prompts
// (with arguments, several roles, an embedded resource, text that looks like
// a command), logging, completions, and tools that ask the client back
// (an elicitation form, sampling, roots). All of it is deterministic: two
// servers, or two runs, serve the same bytes.
//
// Start-up does no data generation: the big texts are built once per process
// on first use. The exported constants name everything tests rely on.
package demo

import (
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"
)

// Options tune the demo server. Zero value = the standard demo.
type Options struct {
	// Scale, when > 0, adds Scale extra generated resources, Scale/10 extra
	// tools and Scale/10 extra prompts (for catalog-scale benchmarks), served
	// in pages of 100 instead of 50.
	Scale int
	// Big adds a 50 MiB blob and a 20 MiB text resource (BigBlobURI,
	// BigTextURI), for benchmarks of reading big things.
	Big bool
}

// demoServer holds the per-server state the handlers share.
type demoServer struct {
	srv        *server.MCPServer
	scale      int
	extraNotes atomic.Int64 // notes added by the add_note tool
}

// New builds the demo server with every capability: tools, resources
// (subscribe and listChanged), resource templates, prompts, logging and
// completions. It does no I/O and no data generation; with Scale set the
// generated items cost nothing until listed (see scale.go).
func New(opts Options) *server.MCPServer {
	pageSize, instructions := PageSize, Instructions
	if opts.Scale > 0 {
		pageSize = ScalePageSize
		instructions += fmt.Sprintf(" This instance runs in scale mode: it adds %d generated resources, %d tools and %d prompts, listed %d to a page.",
			opts.Scale, opts.Scale/10, opts.Scale/10, ScalePageSize)
	}
	d := &demoServer{scale: max(opts.Scale, 0)}
	hooks := &server.Hooks{}
	c := &completer{}
	d.srv = server.NewMCPServer(Name, Version,
		server.WithTitle(Title),
		server.WithInstructions(instructions),
		// Tools and prompts never change at run time; resources do (add_note).
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(c),
		server.WithResourceCompletionProvider(c),
		server.WithPaginationLimit(pageSize),
		// Check structuredContent against each tool's outputSchema (compiled
		// lazily, on a tool's first call). Input is checked by the handlers,
		// whose errors say more than a schema validator's.
		server.WithOutputSchemaValidation(),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		// Two skills (skills.go), served before mcp-go sees the messages.
		server.WithExtensions(map[string]any{SkillsExtension: map[string]any{}}),
	)
	offersSkills.Store(d.srv, struct{}{})
	d.addTools()
	d.addQuestionTools()
	d.addResources()
	d.addDiceApp()
	d.addTemplates()
	d.addPrompts()
	if d.scale > 0 {
		c.scale = d.addScale(hooks)
	}
	if opts.Big {
		d.addBig()
	}
	return d.srv
}
