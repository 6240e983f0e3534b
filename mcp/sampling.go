package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Sampler answers a server's sampling/createMessage. It is never automatic:
// a UI implements it with the person's approval of the request, which
// shows everything the model will see (the server's messages only: no
// tools, none of the person's conversation), so the answer goes back as
// the model gave it. server is the configured name of the server asking.
type Sampler func(ctx context.Context, server string, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error)

type samplingAdapter struct {
	server string
	fn     Sampler
}

func (a samplingAdapter) CreateMessage(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	res, err := a.fn(ctx, a.server, req)
	if err == nil && res == nil {
		err = errors.New("declined")
	}
	if err != nil {
		return nil, fmt.Errorf("howl did not sample for %s: %w", a.server, err)
	}
	return res, nil
}

// LogLevels are MCP's log levels, lowest first (mcp-go's constants): what
// SetLogLevel takes and what notifications/message carries.
var LogLevels = []string{
	string(mcpgo.LoggingLevelDebug), string(mcpgo.LoggingLevelInfo), string(mcpgo.LoggingLevelNotice),
	string(mcpgo.LoggingLevelWarning), string(mcpgo.LoggingLevelError), string(mcpgo.LoggingLevelCritical),
	string(mcpgo.LoggingLevelAlert), string(mcpgo.LoggingLevelEmergency),
}

// SetLogLevel asks a server to send log messages at level and above
// (one of LogLevels).
func (r *Runtime) SetLogLevel(ctx context.Context, server, level string) error {
	if !slices.Contains(LogLevels, level) {
		return fmt.Errorf("log level %q is not one of %s", level, strings.Join(LogLevels, ", "))
	}
	conn, err := r.Conn(server)
	if err != nil {
		return err
	}
	if !conn.features.Logging {
		return fmt.Errorf("server %s does not offer logging (no logging capability in its handshake)", server)
	}
	//lint:ignore SA1019 a server that advertises logging takes logging/setLevel; 2026-07-28 has no replacement
	if err := conn.client.SetLevel(ctx, mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: mcpgo.LoggingLevel(level)}}); err != nil {
		return &ServerError{Server: server, Method: "logging/setLevel", Err: err}
	}
	return nil
}
