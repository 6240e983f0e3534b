// Package render is howl's content policy: everything a model or the
// terminal receives from an MCP server passes through it. It is pure policy
// (standard library only, no I/O beyond its spill directory) so the headless
// verbs, the TUI and the model's meta-functions format content identically.
//
// The policy:
//   - Text is paged: PageText slices at most max_bytes (DefaultMaxBytes,
//     clamped to MaxSliceBytes) at UTF-8 boundaries, optionally after a
//     grep-style pattern filter, and always says shown-of-total and the
//     next_offset to continue.
//   - Binary is never inlined: RenderBlob decodes base64 as a stream (at
//     most MaxDecodedBlob bytes), shows it as text when it is valid UTF-8,
//     and otherwise spills it to a SpillStore, content-addressed, and
//     returns a SpillResult describing the file. The spill tree is bounded
//     by SpillStore.Budget (SpillBudget) with oldest-first eviction.
//   - Responses are bounded: ReadContents renders a resources/read contents
//     array and BoundToolResult a CallToolResult, each within
//     MaxResponseBytes, with server metadata strings clamped to
//     MaxMetaString.
//   - Coverage comes first: every result is a struct whose coverage and
//     caveat fields serialize before the payload, so a consumer that keeps
//     only the head of the JSON still learns what it is missing; unknown is
//     null, never 0. Serialize results with Marshal.
//   - Errors teach: an *Error says what was wrong, the value received and
//     the fix, and every limit is a named constant cited in its own message.
//   - Terminal safety: Sanitize and SanitizeLine strip escape sequences and
//     controls from server strings before the TUI draws them.
package render
