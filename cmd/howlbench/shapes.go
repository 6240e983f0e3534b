package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/howl-mcp/howl/llm"
	"github.com/howl-mcp/howl/mcp"
)

// shapeServers are twenty server names as people configure them. Each
// offers tools, resources and prompts: the per-server set's worst case
// (five functions), and every shared enum lists every server.
var shapeServers = strings.Fields(`filesystem github memory everything postgres slack fetch git time sqlite
	puppeteer brave-search google-maps sentry gitlab redis notion linear jira docker`)

func shapeFeatures(n int) []mcp.Features {
	fs := make([]mcp.Features, n)
	for i := range fs {
		fs[i] = mcp.Features{Name: shapeServers[i], Tools: true, Resources: true, Prompts: true, PeerInfoKnown: true}
	}
	return fs
}

// shapeCatalogs are servers catalogs of items tools each, 10,000 items
// for 20 servers of 500.
func shapeCatalogs(servers, items int) []*mcp.Catalog {
	verbs := strings.Fields("get list create update delete search read write move copy")
	nouns := strings.Fields("file issue branch commit message channel table row page user log metric image")
	cats := make([]*mcp.Catalog, servers)
	for s := range cats {
		cat := &mcp.Catalog{Server: shapeServers[s]}
		for i := range items {
			v, n := verbs[(i+s)%len(verbs)], nouns[(i/len(verbs)+s)%len(nouns)]
			id := fmt.Sprintf("%s_%s_%d", v, n, i)
			cat.Items = append(cat.Items, mcp.CatalogItem{Kind: mcp.KindTool, Server: cat.Server, ID: id, Name: id,
				Description: fmt.Sprintf("%s a %s on %s; pages through the results", v, n, cat.Server)})
		}
		cats[s] = cat
	}
	return cats
}

// functionShapes measures the declarations of both shapes for 1, 4 and
// 20 servers (bytes as a provider receives them, and o200k_base tokens),
// finds where the shared set becomes the smaller, and times the search of
// every server over 20 catalogs.
func functionShapes() comparison {
	var lines []string
	const searches = 20
	return comparison{name: "function-shapes",
		title: "Declarations per-server and shared (1, 4, 20 servers); mcp_search of every server, 20 catalogs, 10,000 items",
		goal:  "shared at 20 servers <= 1.5x one server's per-server set; the search under 10 ms",
		prepare: func(*env) ([]subject, []string, func()) {
			lines = shapeLines()
			cats := shapeCatalogs(20, 500)
			if _, err := mcp.SearchCatalogs(cats, "index", 0); err != nil { // build the indexes, as a first search does
				return nil, []string{err.Error()}, nil
			}
			run := func(context.Context) (sample, error) {
				start := time.Now()
				for range searches {
					if _, err := mcp.SearchCatalogs(cats, "search issues in a log", 20); err != nil {
						return sample{}, err
					}
				}
				return sample{seconds: time.Since(start).Seconds() / searches}, nil
			}
			return []subject{{name: "mcp_search, every server", run: run}}, nil, nil
		},
		notes: func(rows []Row) []string {
			out := lines
			if len(rows) > 0 {
				ms := rows[0].Median * 1000
				out = append(out, fmt.Sprintf("search of every server: %.2f ms median (%s)", ms, verdict(ms < 10, "goal < 10 ms")))
			}
			return out
		},
	}
}

// shapeLines is the declaration table and the crossover.
func shapeLines() []string {
	tk := llm.TokenizerFor("openai/gpt-4o")
	cost := func(shape mcp.FunctionShape, n int) (int, int) {
		js := mcp.DeclarationJSON(mcp.DeclarationsOf(shape, shapeFeatures(n)))
		return len(js), tk.Count(string(js))
	}
	one, _ := cost(mcp.FunctionsPerServer, 1)
	lines := []string{"servers | per-server bytes (tokens) | shared bytes (tokens) | shared / one server's set"}
	for _, n := range []int{1, 4, 20} {
		pb, pt := cost(mcp.FunctionsPerServer, n)
		sb, st := cost(mcp.FunctionsShared, n)
		lines = append(lines, fmt.Sprintf("%d | %d (%d) | %d (%d) | %.2fx", n, pb, pt, sb, st, float64(sb)/float64(one)))
	}
	for n := 1; n <= 20; n++ {
		if pb, _ := cost(mcp.FunctionsPerServer, n); func() bool { sb, _ := cost(mcp.FunctionsShared, n); return sb < pb }() {
			lines = append(lines, fmt.Sprintf("crossover: the shared set is smaller from %d servers (%d bytes per-server); auto switches at %d", n, pb, mcp.SharedFromServers))
			break
		}
	}
	s20, _ := cost(mcp.FunctionsShared, 20)
	lines = append(lines, fmt.Sprintf("shared at 20 servers / one server's per-server set = %.2fx (%s)", float64(s20)/float64(one), verdict(float64(s20) <= 1.5*float64(one), "goal <= 1.5x")))
	return lines
}

// verdict says whether a goal was met (comparisons.go's met, kept apart
// so this file stands alone).
func verdict(ok bool, goal string) string {
	if ok {
		return goal + ": met"
	}
	return goal + ": NOT met"
}
