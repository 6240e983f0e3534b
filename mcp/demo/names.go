package demo

// Identity and paging.
const (
	// Name is the server name reported in serverInfo; it is also the config
	// name howl gives the demo server.
	Name = "demo"
	// Version is the demo server version reported in serverInfo.
	Version = "1.0.0"
	// Title is the human-readable server title reported in serverInfo.
	Title = "howl demo server"
	// Instructions is the instructions text sent in the handshake.
	Instructions = "The howl demo server is a safe, deterministic playground built into howl: " +
		"it offers tools (progress, cancellation, images, structured output, errors), " +
		"126 resources over 3 pages, 2 resource templates and 6 prompts, and nothing it does touches your machine."

	// PageSize is how many items each list page holds in the standard demo.
	PageSize = 50
	// ScalePageSize is how many items each list page holds when Options.Scale > 0.
	ScalePageSize = 100
)

// Resource URIs. Every one of them is listed by resources/list.
const (
	// LogURI is the 2 MiB generated application log (text/plain).
	LogURI = "demo://logs/app.log"
	// JSONURI is a service configuration document (application/json).
	JSONURI = "demo://data/config.json"
	// MarkdownURI is the demo guide with headings, a table and a Go code block (text/markdown).
	MarkdownURI = "demo://docs/readme.md"
	// GoSourceURI is a Go source file (text/x-go).
	GoSourceURI = "demo://code/server.go"
	// PNGURI is a 64x64 colour PNG served as a blob (image/png).
	PNGURI = "demo://images/moon.png"
	// MislabeledURI is plain UTF-8 text served as an application/octet-stream blob.
	MislabeledURI = "demo://data/release-notes.bin"
	// BinaryURI is 4 KiB of pseudo-random bytes (application/octet-stream blob, not UTF-8).
	BinaryURI = "demo://data/random.bin"
	// UnicodeURI is multi-byte UTF-8 text (scripts, emoji, combining marks).
	UnicodeURI = "demo://data/unicode.txt"
	// EscapesURI is text full of terminal escape sequences and control
	// characters, for testing that a client sanitizes server strings.
	EscapesURI = "demo://data/terminal-escapes.txt"
	// CSVURI is a small metrics table (text/csv).
	CSVURI = "demo://data/metrics.csv"
	// EmptyURI is a zero-byte text file.
	EmptyURI = "demo://data/empty.txt"
	// UntypedURI is a text resource that declares no MIME type at all.
	UntypedURI = "demo://data/untyped"
	// BrokenURI is listed but every read fails with an error.
	BrokenURI = "demo://data/broken"
	// WelcomeURI is annotated for the user (audience ["user"], priority 1).
	WelcomeURI = "demo://docs/welcome.txt"
	// AssistantGuideURI is annotated for the model (audience ["assistant"], priority 0.8).
	AssistantGuideURI = "demo://docs/assistant-guide.md"
	// DiceAppURI is the dice tool's MCP App: a few KB of HTML, no framework.
	DiceAppURI = "ui://demo/dice.html"
	// NoteURIPrefix starts the URIs of the generated notes; see NoteURI.
	NoteURIPrefix = "demo://notes/"
)

// Sizes and counts of the generated data.
const (
	// LogSize is the exact size in bytes of the resource at LogURI (2 MiB).
	LogSize = 2 << 20
	// BigTextSize is the exact size in bytes of the big_text tool's text (300 KiB).
	BigTextSize = 300 << 10
	// BigTextLines is how many lines the big_text tool returns (each 100 bytes with its newline).
	BigTextLines = BigTextSize / 100
	// BinarySize is the size in bytes of the resource at BinaryURI.
	BinarySize = 4 << 10
	// NoteCount is how many notes (NoteURI(1) .. NoteURI(NoteCount)) are listed.
	NoteCount = 110
	// ResourceCount is how many resources the standard demo lists.
	ResourceCount = 16 + NoteCount
	// TemplateCount is how many resource templates the standard demo lists.
	TemplateCount = 2
	// ToolCount is how many tools the standard demo lists.
	ToolCount = 15
	// PromptCount is how many prompts the standard demo lists.
	PromptCount = 6
	// MaxExtraNotes is how many notes the add_note tool may add to one server.
	MaxExtraNotes = 1000
)

// Resource templates (RFC 6570 level 1: only {var}).
const (
	// LogTemplate reads a small generated log for one day, e.g. demo://logs/2025-06-14.
	LogTemplate = "demo://logs/{date}"
	// UserTemplate reads one user profile as JSON, e.g. demo://users/ada.
	UserTemplate = "demo://users/{id}"
	// ScaleTemplate reads one generated item in scale mode (Options.Scale > 0 only).
	ScaleTemplate = "demo://scale/{n}"
)

// Tool names.
const (
	// EchoTool returns its message argument unchanged.
	EchoTool = "echo"
	// AddTool adds two numbers; text and structured result.
	AddTool = "add"
	// SlowTool runs for duration_ms in steps, with progress and cancellation.
	SlowTool = "slow"
	// ImageTool returns the PNG at PNGURI as image content.
	ImageTool = "image"
	// BigTextTool returns BigTextSize bytes of numbered lines.
	BigTextTool = "big_text"
	// StructuredTool returns structuredContent matching its outputSchema, plus a text fallback.
	StructuredTool = "structured"
	// FailTool always returns an isError result.
	FailTool = "fail"
	// LinksTool returns a resource_link, an embedded text resource and an embedded blob resource.
	LinksTool = "links"
	// DeleteNoteTool carries destructiveHint but deletes nothing.
	DeleteNoteTool = "delete_note"
	// AddNoteTool adds a note resource, which makes the server send notifications/resources/list_changed.
	AddNoteTool = "add_note"
	// TouchTool sends notifications/resources/updated for a URI the session subscribed to.
	TouchTool = "touch"
	// BookTableTool asks the person for a booking through an elicitation form.
	BookTableTool = "book_table"
	// SummarizeTool asks the client's model for a summary through sampling.
	SummarizeTool = "summarize"
	// RootsTool asks the client for its roots and lists them.
	RootsTool = "list_roots"
	// DiceTool rolls a die and declares the MCP App at DiceAppURI.
	DiceTool = "roll_dice"
)

// Prompt names.
const (
	// GreetingPrompt takes no arguments.
	GreetingPrompt = "greeting"
	// CodeReviewPrompt takes a required "language" and an optional "focus", both completable.
	CodeReviewPrompt = "code_review"
	// ConversationPrompt returns alternating user and assistant messages.
	ConversationPrompt = "conversation"
	// BangPrompt returns text starting with "!" (text, never a command).
	BangPrompt = "bang"
	// DotPrompt returns text starting with "." (text, never a command).
	DotPrompt = "dot"
	// WithResourcePrompt returns a message embedding the Markdown guide as a resource.
	WithResourcePrompt = "with_resource"
)

// Texts of the prompts that look like commands.
const (
	// BangText is the whole text of the bang prompt's message.
	BangText = "!rm -rf / — this is only text; a client must never execute it"
	// DotText is the whole text of the dot prompt's message.
	DotText = ".quit — only text; a client must never treat it as a command"
)
