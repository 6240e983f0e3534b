package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/howl-mcp/howl/mcp"
)

// elicitor picks how headless verbs answer a server's questions.
func elicitor(g *globalFlags) (mcp.Elicitor, error) {
	mode := g.elicit
	if mode == "" {
		mode = "decline"
		if isTerminal(os.Stdin) {
			mode = "ask"
		}
	}
	switch mode {
	case "defaults":
		return mcp.ElicitWithDefaults, nil
	case "decline":
		return mcp.ElicitDeclineAll, nil
	case "ask":
		return askElicit, nil
	}
	return nil, usagef("--elicit %q: use ask, defaults or decline", g.elicit)
}

var askMu sync.Mutex // one question on the terminal at a time

// askElicit asks the person on the terminal, field by field.
func askElicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	askMu.Lock()
	defer askMu.Unlock()
	in := bufio.NewReader(os.Stdin)
	fmt.Fprintf(os.Stderr, "\nserver %s asks: %s\n", clean(server), cleanText(req.Message))
	if req.Mode == "url" {
		fmt.Fprintf(os.Stderr, "it wants you to visit: %s\nhowl does not open URLs from the command line; declining.\n", clean(req.URL))
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	var schema struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
			Default     any    `json:"default"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(req.Schema, &schema)
	names := make([]string, 0, len(schema.Properties))
	for k := range schema.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	content := map[string]any{}
	for _, k := range names {
		p := schema.Properties[k]
		hint := p.Type
		if len(p.Enum) > 0 {
			hint = fmt.Sprintf("one of %v", p.Enum)
		}
		if p.Default != nil {
			hint += fmt.Sprintf(", default %v", p.Default)
		}
		fmt.Fprintf(os.Stderr, "  %s (%s) %s: ", clean(k), clean(hint), clean(p.Description))
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return mcp.ElicitResponse{Action: mcp.ElicitCancel}, nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if p.Default != nil {
				content[k] = p.Default
			}
			continue
		}
		content[k] = typed(p.Type, line)
	}
	fmt.Fprint(os.Stderr, "send these answers? [Y/n] ")
	line, _ := in.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "n" || a == "no" {
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	return mcp.ElicitResponse{Action: mcp.ElicitAccept, Content: content}, ctx.Err()
}

func typed(kind, s string) any {
	switch kind {
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return s
}
