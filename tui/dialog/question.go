package dialog

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/howl-mcp/howl/mcp"
)

// question is one server request waiting for the person: an elicitation
// (elicit set) or a sampling request (sample set). The asking goroutine
// waits on reply, which is buffered so the program never blocks answering;
// only the first answer counts.
type Question struct {
	Ctx    context.Context
	Server string
	Elicit *mcp.ElicitRequest
	Sample *mcpgo.CreateMessageRequest
	reply  chan QuestionAnswer
}

// questionAnswer is the person's answer to a question.
type QuestionAnswer struct {
	Elicit mcp.ElicitResponse
	Sample *mcpgo.CreateMessageResult
	Err    error
}

// Answer replies to the asker; later answers are dropped, never blocked on.
func (q *Question) Answer(a QuestionAnswer) {
	select {
	case q.reply <- a:
	default:
	}
}

// AskElicit is a server's elicitation waiting for the person, asked under ctx.
func AskElicit(ctx context.Context, server string, req *mcp.ElicitRequest) *Question {
	return &Question{Ctx: ctx, Server: server, Elicit: req, reply: make(chan QuestionAnswer, 1)}
}

// AskSample is a server's sampling request waiting for the person's approval.
func AskSample(ctx context.Context, server string, req *mcpgo.CreateMessageRequest) *Question {
	return &Question{Ctx: ctx, Server: server, Sample: req, reply: make(chan QuestionAnswer, 1)}
}

// Reply delivers the first answer.
func (q *Question) Reply() <-chan QuestionAnswer { return q.reply }
