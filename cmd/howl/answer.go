package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/howl-mcp/howl/mcp"
)

// MaxParkedQuestions bounds the servers' questions a session holds for
// `howl answer`; one more is declined at once, and the message says so.
const MaxParkedQuestions = 32

// parkedQuestions are the servers' questions (elicitations) a session holds
// until a later `howl answer` answers them, or the server gives up.
type parkedQuestions struct {
	mu    sync.Mutex
	next  int
	items map[int]*parkedQuestion
	// notify tells the session's log and the verbs running that a
	// question waits (set by serve-session).
	notify func(line string)
}

type parkedQuestion struct {
	id     int
	server string
	req    mcp.ElicitRequest
	answer chan mcp.ElicitResponse
}

func newParkedQuestions() *parkedQuestions {
	return &parkedQuestions{items: map[int]*parkedQuestion{}, notify: func(string) {}}
}

// elicit is the session's Elicitor: it parks the question and waits for
// `howl answer ID`, or for the server to give up (ctx).
func (p *parkedQuestions) elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	p.mu.Lock()
	if len(p.items) >= MaxParkedQuestions {
		p.mu.Unlock()
		p.notify(fmt.Sprintf("howl: %s asked a question while %d wait (MaxParkedQuestions): declined; answer the waiting ones with howl answer", clean(server), MaxParkedQuestions))
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	p.next++
	q := &parkedQuestion{id: p.next, server: server, req: req, answer: make(chan mcp.ElicitResponse, 1)}
	p.items[q.id] = q
	p.mu.Unlock()
	defer p.take(q.id)
	p.notify(fmt.Sprintf("howl: %s asks (question %d): %s; answer with howl answer %d%s, or howl answer %d --decline",
		clean(server), q.id, clean(req.Message), q.id, q.fieldsHint(), q.id))
	select {
	case a := <-q.answer:
		return a, nil
	case <-ctx.Done():
		return mcp.ElicitResponse{Action: mcp.ElicitCancel}, ctx.Err()
	}
}

// take removes question id (nil: no such question waits).
func (p *parkedQuestions) take(id int) *parkedQuestion {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.items[id]
	delete(p.items, id)
	return q
}

// list is the waiting questions, oldest first.
func (p *parkedQuestions) list() []*parkedQuestion {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*parkedQuestion
	for _, q := range p.items {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// props are a form's fields, required first.
func (q *parkedQuestion) props() []askProp {
	props := mcp.SchemaProps(q.req.Schema)
	slices.SortStableFunc(props, func(a, b mcp.SchemaProp) int { return strings.Compare(a.Name, b.Name) })
	var out []askProp
	for _, sp := range mcp.RequiredFirst(q.req.Schema, props) {
		out = append(out, askProp{sp})
	}
	return out
}

// fieldsHint is " name=... date=..." for a form (required fields marked *).
func (q *parkedQuestion) fieldsHint() string {
	if q.req.Mode == "url" {
		return " --accept (to say you visited " + clean(q.req.URL) + ")"
	}
	var b strings.Builder
	for _, p := range q.props() {
		mark := ""
		if p.Required {
			mark = "*"
		}
		fmt.Fprintf(&b, " %s%s=<%s>", clean(p.Name), mark, clean(p.hint()))
	}
	return b.String()
}

// parse types k=v answers by the form's schema.
func (q *parkedQuestion) parse(kv map[string]string) (map[string]any, error) {
	content := map[string]any{}
	known := map[string]bool{}
	var problems []string
	for _, p := range q.props() {
		known[p.Name] = true
		v, set, problem := p.parse(strings.TrimSpace(kv[p.Name]))
		if problem != "" {
			problems = append(problems, p.Name+": "+problem)
			continue
		}
		if set {
			content[p.Name] = v
		}
	}
	for k := range kv {
		if !known[k] {
			problems = append(problems, fmt.Sprintf("%s: the form has no such field", k))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, usagef("question %d: %s (the fields:%s)", q.id, clean(strings.Join(problems, "; ")), q.fieldsHint())
	}
	return content, nil
}

func newAnswerCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var decline, accept bool
	cmd := &cobra.Command{
		Use:   "answer [ID [k=v ...] | ID --decline]",
		Short: "Answer a server's question parked in the session (howl serve-session)",
		Long: `A session (howl serve-session) parks the questions servers ask
(elicitation forms and URLs) until you answer them: howl answer lists them,
howl answer ID k=v ... accepts with those values (typed and checked by the
form's schema), howl answer ID --decline declines, and for a URL question
howl answer ID --accept says you visited it. It always runs in the session.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.shared == nil || g.shared.parked == nil {
				return usagef("no session parks questions here: start one with howl serve-session")
			}
			book := g.shared.parked
			if len(args) == 0 {
				qs := book.list()
				if len(qs) == 0 {
					fmt.Fprintln(stdout, "no question waits")
				}
				for _, q := range qs {
					fmt.Fprintf(stdout, "%d  %s asks: %s\n   howl answer %d%s\n", q.id, clean(q.server), clean(q.req.Message), q.id, q.fieldsHint())
				}
				return nil
			}
			id, err := strconv.Atoi(args[0])
			if err != nil {
				return usagef("%q is not a question's number: howl answer lists them", args[0])
			}
			kv, err := mcp.ParseKeyValues(args[1:])
			if err != nil {
				return usageError{err}
			}
			q := book.take(id)
			if q == nil {
				return usagef("no question %d waits (answered, or its server gave up): howl answer lists them", id)
			}
			resp := mcp.ElicitResponse{Action: mcp.ElicitAccept}
			switch {
			case decline:
				resp.Action = mcp.ElicitDecline
			case q.req.Mode == "url" && !accept:
				err = usagef("question %d is a URL to visit: --accept once you did, or --decline", id)
			case q.req.Mode != "url":
				resp.Content, err = q.parse(kv)
			}
			if err != nil {
				book.put(q) // it still waits
				return err
			}
			q.answer <- resp
			fmt.Fprintf(stdout, "question %d (%s): %s sent\n", id, clean(q.server), resp.Action)
			return nil
		},
	}
	cmd.Flags().BoolVar(&decline, "decline", false, "decline the question")
	cmd.Flags().BoolVar(&accept, "accept", false, "accept a URL question (you visited it)")
	return cmd
}

// put parks a question again (an answer that did not fit).
func (p *parkedQuestions) put(q *parkedQuestion) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items[q.id] = q
}
