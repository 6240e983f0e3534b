package apphost

import "github.com/howl-mcp/howl/mcp"

// howl's runtime is what apps reach.
var _ Server = (*mcp.Runtime)(nil)
