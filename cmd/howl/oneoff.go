package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/howl-mcp/howl/mcp"
)

// oneOffConfig is the config of a server named on the command line:
// --url URL (streamable HTTP) or --stdio 'COMMAND ARGS' (run over
// stdio). It goes through the config parser like any entry, and it is the
// person's own: they typed it, so nothing asks to trust it.
func oneOffConfig(g *globalFlags) (*mcp.Config, error) {
	if g.url != "" && g.stdio != "" {
		return nil, usagef("--url and --stdio both name a server: use one of them")
	}
	if g.config != "" {
		return nil, usagef("--%s and --config both name servers: use one of them", g.oneOff())
	}
	entry := map[string]any{"url": g.url}
	if g.stdio != "" {
		words, err := splitCommandLine(g.stdio)
		if err != nil {
			return nil, usagef("--stdio %q: %v", g.stdio, err)
		}
		if len(words) == 0 {
			return nil, usagef("--stdio is empty: give the command line, e.g. --stdio 'npx -y @modelcontextprotocol/server-everything'")
		}
		entry = map[string]any{"command": words[0], "args": words[1:]}
	}
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{g.oneOff(): entry}})
	if err != nil {
		return nil, err
	}
	cfg, err := mcp.ParseConfig("--"+g.oneOff(), data, nil)
	if err != nil {
		return nil, usageError{err}
	}
	return cfg, nil
}

// splitCommandLine splits a command line into words the way a POSIX shell
// would without running anything: white space separates, 'single' and
// "double" quotes group, a backslash escapes the next character (outside
// single quotes). Variables and globs are not expanded: the shell that
// ran howl did that already.
func splitCommandLine(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("the %c quote is not closed: close it, or escape it with a backslash", quote)
	}
	if escaped {
		return nil, fmt.Errorf("it ends with a lone backslash: remove it, or quote it")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
