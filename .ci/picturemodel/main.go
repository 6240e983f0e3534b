// Command picturemodel is the scripted model behind the README's chat
// picture (.ci/pictures): an OpenAI-compatible endpoint (llm/llmtest, the
// same stand-in the tests use; no real model is reachable from CI) that
// reads the demo's app log through howl's mcp_read meta-function, then
// answers from what it read. It prints its base URL and serves until its
// stdin closes.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/howl-mcp/howl/llm/llmtest"
)

func main() {
	srv := llmtest.NewOpenAI(llmtest.Sequence(
		llmtest.Turn{
			Text:      "Let me look at the errors in the app log.",
			ToolCalls: []llmtest.ToolCall{{ID: "read-1", Name: "mcp_read_demo", Arguments: `{"uri":"demo://logs/app.log","pattern":"ERROR","max_bytes":2048}`}},
		},
		llmtest.Turn{Text: "The log has **three kinds of errors**:\n\n" +
			"1. `payments`: charges declined by the card issuer\n" +
			"2. `db`: deadlocks on the `orders` table, each retried (up to 3 attempts)\n" +
			"3. `worker`: a panic rendering invoices, `template \"invoice.tmpl\": missing key \"vat_rate\"`\n\n" +
			"The third is a bug, not load: every invoice job without a VAT rate fails the same way."},
	))
	defer srv.Close()
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
