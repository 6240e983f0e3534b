package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp/demo"
)

func newDemoServerCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var addr string
	var scale int
	var big bool
	cmd := &cobra.Command{
		Use:   "demo-server [--http ADDR]",
		Short: "Run the embedded demo MCP server (stdio by default)",
		Long: `Run the embedded demo MCP server: tools, 120+ resources across pages,
resource templates, prompts, completions and logging, all deterministic.
howl starts it over stdio when no config file exists. With --http it serves
streamable HTTP at http://ADDR/mcp instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if scale < 0 {
				return usagef("--scale %d is negative: pass 0 (the standard demo) or a positive item count", scale)
			}
			srv := demo.New(demo.Options{Scale: scale, Big: big})
			if addr == "" {
				return demo.ServeStdio(cmd.Context(), srv, stdin, stdout)
			}
			return demo.ServeHTTP(cmd.Context(), srv, addr, func(url string) {
				fmt.Fprintf(stderr, "howl demo-server: serving streamable HTTP at %s\n", url)
			})
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) instead of stdio")
	cmd.Flags().IntVar(&scale, "scale", 0, "add N generated resources and N/10 tools and prompts (benchmarks)")
	cmd.Flags().BoolVar(&big, "big", false, "add a 50 MiB blob and a 20 MiB text resource (benchmarks)")
	return cmd
}
