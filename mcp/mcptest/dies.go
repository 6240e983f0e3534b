package mcptest

import (
	"fmt"
	"io"
	"strings"
)

// DiesOnToolsListStatus is the exit status of ServeDiesOnToolsList, and
// DiesOnToolsListWords the last line it writes to stderr.
const (
	DiesOnToolsListStatus = 3
	DiesOnToolsListWords  = "fatal: tool registry /var/lib/tools.db is corrupt"
)

// Death is how ServeDiesOnToolsList ends on tools/list.
type Death int

const (
	// DiesAtOnce exits without answering.
	DiesAtOnce Death = iota
	// DiesMidAnswer writes half an answer, without its line's end, and exits.
	DiesMidAnswer
	// HangsUp closes out (its stdout) and runs on until in ends.
	HangsUp
)

// ServeDiesOnToolsList is a server on in/out (stdio) that answers the
// handshake (tools only, protocol 2025-11-25), then, on tools/list, writes
// DiesOnToolsListWords to errOut and ends as how says: for DiesAtOnce and
// DiesMidAnswer it returns DiesOnToolsListStatus for the caller to exit
// with, a server that dies while it is listed. Nothing in it relies on a
// signal, so it dies the same way on Windows.
func ServeDiesOnToolsList(in io.Reader, out io.WriteCloser, errOut io.Writer, how Death) int {
	return ServeDiesOn(in, out, errOut, "tools/list", how)
}

// CrashTool is the one tool ServeDiesOn lists when it dies on another
// method than tools/list.
const CrashTool = "crash"

// ServeDiesOn is ServeDiesOnToolsList dying on method instead: until then
// tools/list lists CrashTool, so a client can call it. Dying on a
// resources/ method, it declares resources too (and lists none).
func ServeDiesOn(in io.Reader, out io.WriteCloser, errOut io.Writer, on string, how Death) int {
	status := 0
	serveLines(in, out, func(method string, msg map[string]any) bool {
		switch method {
		case "initialize":
			caps := map[string]any{"tools": map[string]any{}}
			if strings.HasPrefix(on, "resources/") {
				caps["resources"] = map[string]any{}
			}
			msg["result"] = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "dies", "version": "1"}, "capabilities": caps}
		case on:
			if how == DiesMidAnswer {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"half`, msg["id"])
			}
			fmt.Fprintln(errOut, "loading tools")
			fmt.Fprintln(errOut, DiesOnToolsListWords)
			if how != HangsUp {
				status = DiesOnToolsListStatus
				return true
			}
			out.Close()
			_, _ = io.Copy(io.Discard, in) // runs on until in ends
			return true
		case "tools/list":
			msg["result"] = map[string]any{"tools": []any{map[string]any{"name": CrashTool, "inputSchema": map[string]any{"type": "object"}}}}
		default:
			msg["error"] = map[string]any{"code": -32601, "message": "method not found"}
		}
		return false
	})
	return status
}
