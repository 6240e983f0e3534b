// Package llm is howl's model side: which model to talk to (Settings,
// Resolve), the providers behind one small interface (Model, NewModel), the
// conversation as plain data (Conversation, Message, ToolCall, ToolResult),
// and the tool loop (Agent.Run) that sends the conversation with the gated
// meta-function declarations of every ready MCP server, dispatches the
// model's calls through mcp.Runtime.CallMeta concurrently, and streams typed
// Events to whoever draws them.
//
// Providers come from charm.land/fantasy: OpenAI and Anthropic natively, and
// any OpenAI-compatible endpoint (Ollama, llama.cpp server, vLLM, LM Studio,
// OpenRouter) over the streamed Chat Completions API. howl runs its own loop
// rather than fantasy's agent: it needs the meta-function table, concurrent
// dispatch with MCP cancellation, a step limit stated to both sides,
// rate-limit retries that never replay streamed text, and errors that teach.
//
// The package imports mcp and render, never a UI.
package llm
