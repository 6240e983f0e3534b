package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/render"
)

// ServerError is a request to a server that failed: a JSON-RPC error the
// server answered with (its message is the server's own), or no answer at
// all (the connection failed, or the request's idle timeout ran out).
type ServerError struct {
	Server string
	Method string
	Err    error
}

// Error is at most render.MaxMessageBytes long, however long the
// server's own message. It says that the server answered only when it
// did: a request that got no answer says so, lest a broken connection
// read as the server's refusal, and an answer howl would not read (over a
// bound) says that.
func (e *ServerError) Error() string {
	why, how := failureOf(e.Err)
	switch how {
	case noReply:
		return render.BoundMessage(fmt.Sprintf("%s got no answer from %s: %s", e.Method, e.Server, why))
	case notRead:
		return render.BoundMessage(fmt.Sprintf("%s's answer from %s was not read: %s", e.Method, e.Server, why))
	}
	return render.BoundMessage(fmt.Sprintf("%s answered %s with an error: %s", e.Server, e.Method, why))
}

// How a request failed (failureOf).
const (
	answeredError = iota // the server answered with an error: JSON-RPC's or HTTP's
	noReply              // no answer came: the connection broke or went quiet
	notRead              // an answer came that howl stopped reading, over a bound
)

// failureOf is why a request failed, without mcp-go's "transport error: "
// prefix, and how: an HTTP status is the server's answer; a message over
// MaxMessageBytes or MaxEventDataRuns is an answer not read; any other
// transport failure (mcp-go's transport.Error) or the idle timeout
// (ErrNoProgress) is no answer.
func failureOf(err error) (string, int) {
	var te *transport.Error
	switch {
	case errors.Is(err, ErrNoProgress):
		return err.Error(), noReply
	case errors.As(err, &te):
		why := strings.Replace(err.Error(), te.Error(), fmt.Sprint(te.Err), 1)
		switch {
		case errors.Is(err, errOverMaxMessageBytes), errors.Is(err, errOverMaxEventDataRuns):
			return why, notRead
		case strings.HasPrefix(fmt.Sprint(te.Err), "request failed with status "): // mcp-go's words
			return why, answeredError
		}
		return why, noReply
	}
	return err.Error(), answeredError
}

func (e *ServerError) Unwrap() error { return e.Err }

var progressCounter atomic.Int64

// progressMeta gives a request a fresh progress token, so servers that
// report progress can.
func progressMeta() *mcpgo.Meta {
	return &mcpgo.Meta{ProgressToken: fmt.Sprintf("howl-%d", progressCounter.Add(1))}
}

// progressMetaFor uses the progress token the runtime tracks the request
// by (see Runtime.track), else a fresh one.
func progressMetaFor(ctx context.Context) *mcpgo.Meta {
	if tok, ok := ctx.Value(progressTokenKey{}).(string); ok {
		return &mcpgo.Meta{ProgressToken: tok}
	}
	return progressMeta()
}

// rawResult runs call with a raw sink and returns the raw JSON-RPC result.
// A typed-parse failure with a raw result in hand is not an error: howl
// parses the raw JSON itself. A raw result that still asks for input is
// not a result, though: on 2026-07-28 the sink last saw the round that
// asked, and the call failed answering it (a declined or failed sampling,
// say), so the failure is what the caller gets.
func (c *Conn) rawResult(ctx context.Context, method string, call func(context.Context) error) (json.RawMessage, error) {
	raw, _, err := c.rawResultFrom(ctx, method, false, call)
	return raw, err
}

// rawResultFrom is rawResult where streamsBlobs lets a long answer's
// blobs stay in the stdio transport's spool file: then raw is its short
// copy and long holds them, and the caller closes long. A raw capture
// (the TUI's raw view) keeps the exact bytes, so it turns streaming off.
func (c *Conn) rawResultFrom(ctx context.Context, method string, streamsBlobs bool, call func(context.Context) error) (raw json.RawMessage, long *spooledStrings, err error) {
	sctx, sink := withRawSink(ctx)
	_, capturing := ctx.Value(rawCaptureKey{}).(*RawCapture)
	sink.streamsBlobs = streamsBlobs && !capturing
	err = call(sctx)
	raw, long = sink.get(), sink.takeLong()
	if raw != nil && !asksForInput(raw) {
		captureRaw(ctx, raw)
		return raw, long, nil
	}
	long.Close()
	return nil, nil, c.rawFailure(ctx, method, raw, err)
}

// rawFailure is why a call made with a raw sink has no result.
func (c *Conn) rawFailure(ctx context.Context, method string, raw json.RawMessage, err error) error {
	if raw != nil && ctx.Err() == nil {
		if err == nil {
			err = errors.New("the client stopped answering")
		}
		return fmt.Errorf("%s on %s stopped: the server asked howl for input mid-call and got no answer: %w", method, c.name, err)
	}
	if err == nil {
		err = errors.New("the server sent no result")
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s on %s cancelled: %w", method, c.name, ctx.Err())
	}
	if errors.Is(err, transport.ErrTransportClosed) {
		err = fmt.Errorf("the connection closed before the answer came (did the server exit? see howl servers): %w", err)
	}
	return &ServerError{Server: c.name, Method: method, Err: err}
}

// asksForInput reports whether a raw result is a 2026-07-28
// input-required result rather than the answer.
// It reads the result's members without copying them, and stops at
// resultType: a 67 MiB blob result is not decoded for one short field.
func asksForInput(raw json.RawMessage) bool {
	asks := false
	_ = render.ObjectMembers(raw, func(k string, v []byte) bool {
		if k != "resultType" {
			return true
		}
		var rt mcpgo.ResultType
		asks = json.Unmarshal(v, &rt) == nil && rt == mcpgo.ResultTypeInputRequired
		return false
	})
	return asks
}

// ReadRaw reads a resource and returns the raw items of its contents array.
func (c *Conn) ReadRaw(ctx context.Context, uri string) ([]json.RawMessage, error) {
	r, err := c.readRaw(ctx, uri, false)
	return r.contents, err
}

// rawRead is a read's raw contents and, when the read streams its blobs,
// those the stdio transport left in its spool file (nil when none did),
// for render.ReadContentsFrom; the caller closes long.
type rawRead struct {
	contents []json.RawMessage
	long     *spooledStrings
}

// readRaw is ReadRaw; with streamsBlobs a long blob stays in the spool
// file and is decoded from there.
func (c *Conn) readRaw(ctx context.Context, uri string, streamsBlobs bool) (rawRead, error) {
	raw, long, err := c.rawResultFrom(ctx, "resources/read", streamsBlobs, func(ctx context.Context) error {
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = uri
		req.Params.Meta = progressMetaFor(ctx)
		_, err := c.client.ReadResource(ctx, req)
		return err
	})
	if err != nil {
		return rawRead{}, err
	}
	contents, err := rawContents(raw)
	if err != nil {
		long.Close()
		return rawRead{}, &ServerError{Server: c.name, Method: "resources/read", Err: fmt.Errorf("the result's contents is not an array of objects: %v", err)}
	}
	return rawRead{contents: contents, long: long}, nil
}

// rawContents returns the items of a read result's contents array as
// subslices of raw: a 67 MiB blob item is not copied to be handed on.
func rawContents(raw json.RawMessage) ([]json.RawMessage, error) {
	var list []byte
	err := render.ObjectMembers(raw, func(k string, v []byte) bool {
		if strings.EqualFold(k, "contents") {
			list = v // the last one wins, as in encoding/json
		}
		return true
	})
	if err != nil || list == nil {
		return nil, err
	}
	var contents []json.RawMessage
	err = render.ArrayElements(list, func(e []byte) bool {
		contents = append(contents, e)
		return true
	})
	return contents, err
}

// CallRaw calls a tool and returns the raw CallToolResult JSON.
func (c *Conn) CallRaw(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	return c.rawResult(ctx, "tools/call", func(ctx context.Context) error {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool
		if args == nil {
			args = map[string]any{}
		}
		req.Params.Arguments = args
		req.Params.Meta = progressMetaFor(ctx)
		_, err := c.client.CallTool(ctx, req)
		return err
	})
}

// GetPromptRaw gets a prompt and returns the raw GetPromptResult JSON.
func (c *Conn) GetPromptRaw(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	return c.rawResult(ctx, "prompts/get", func(ctx context.Context) error {
		req := mcpgo.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		req.Params.Meta = progressMetaFor(ctx)
		_, err := c.client.GetPrompt(ctx, req)
		return err
	})
}
