package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/theme"
	"github.com/howl-mcp/howl/tui/common"
)

// docKind is how the viewer draws a document.
type docKind int

const (
	docText  docKind = iota // numbered text lines (a read, a page of one)
	docRich                 // labelled blocks: a tool result, a prompt, a multi-item read
	docHex                  // a binary spill file, row by row
	docImage                // an image spill file
	docError                // a request that failed
)

// docLine is one line of a text or rich document.
type docLine struct {
	// num is the line number in the gutter (0: none); mark is ':' for a
	// line a pattern matched, '-' for context, 0 otherwise.
	num  int
	mark byte
	// plain is the sanitized, tab-expanded text that search runs over;
	// styled is what is drawn. width is plain's width in cells.
	plain, styled string
	width         int
}

// Attachment is something in a document that opens in a viewer of its
// own: a spilled file, or a linked resource.
type Attachment struct {
	label string
	spill *render.SpillResult
	// server and uri name a resource_link to read.
	server, uri string
}

// readSource is how to fetch another page of a paged read: the request
// that produced the page and where the page sits in the stream.
type readSource struct {
	server  string
	uri     string
	args    map[string]string
	pattern string
	offset  int
	next    *int
	total   int
	// firstLine is the number of the page's first line (1 for the first
	// page); 0 when unknown. continued: that line began on an earlier page.
	firstLine int
	continued bool
	// history holds the pages before this one, for going back.
	history []pageMark
}

// pageMark is a visited page start.
type pageMark struct {
	offset, firstLine int
	continued         bool
}

// document is one thing the viewer shows.
type document struct {
	// id is the request that loaded it (unique: one id source); render
	// caches and the answers to its own requests key on it.
	id    common.RequestID
	kind  docKind
	title string
	// meta are metadata lines above the body; note is the coverage line.
	meta []string
	note string
	// isError marks a tool result that reported an error.
	isError bool
	lines   []docLine
	gutter  bool
	src     *readSource
	spill   *render.SpillResult
	hex     *hexSource
	img     *imageDoc
	atts    []Attachment
	// copyText is what y copies when the document has no file path.
	copyText string

	// read is how many of its followed resource's changes (see
	// common.Subscriptions) what is shown covers: fewer means stale.
	read int
	// reread is when the last re-read of its followed resource ended
	// (zero: none yet); rereadDue says one waits for the end of RereadGap
	// after it (a rereadDueMsg is on its way).
	reread    time.Time
	rereadDue bool
	// raw is the exact JSON the server sent for this read, call or
	// prompt (R shows it); rawView marks the document that shows it.
	raw     *rawResult
	rawView bool

	// The view position and wrapping, kept with the document so going
	// back restores them.
	top, xoff int
	wrap      bool

	// app is the MCP App this document opened (0: none): the app lives
	// while a document carrying it is in the viewer.
	app common.RequestID
}

// rereadReq reads the document's resource again (same server, URI,
// arguments and pattern) in place of it; callers set the page.
func (d *document) rereadReq() Request {
	s := d.src
	return Request{kind: reqRead, server: s.server, uri: s.uri, args: s.args, pattern: s.pattern, mode: openReplace, title: d.title}
}

// reqKind says what a Request asks for.
type reqKind int

const (
	reqRead reqKind = iota
	reqCall
	reqPrompt
	reqSpill
	// reqText shows text the TUI already holds (a chat tool result).
	reqText
)

// Request is everything a load command needs, captured by value when
// the command is made.
type Request struct {
	kind   reqKind
	server string
	title  string
	// Read: uri (a URI, or a template with args), pattern, offset.
	uri       string
	args      map[string]string
	pattern   string
	offset    int
	firstLine int
	history   []pageMark
	// continued: the page starts inside a line the previous page began.
	continued bool
	// Call: tool and its arguments. Prompt: name and its arguments.
	tool     string
	toolArgs map[string]any
	// keyValues are `.call`'s key=value arguments, typed by the tool's
	// schema when the call is made (toolArgs is then ignored).
	keyValues  map[string]string
	prompt     string
	promptArgs map[string]string
	// Text: the text to show (JSON is pretty-printed and highlighted);
	// raw, when set, makes it the raw view of a server's JSON.
	text string
	raw  *rawResult
	// Spill: the file to open; asHex forces the hex view of an image.
	spill *render.SpillResult
	asHex bool
	// mode says what the result does to the documents on screen.
	mode openMode
	// refresh: a re-read of the page on screen after the server said the
	// resource changed; the new page keeps the scroll position.
	refresh bool
	// appURI: the call or read opens this MCP App once it succeeds.
	appURI string
}

// openMode says how a loaded document joins the viewer.
type openMode int

const (
	// openFresh replaces everything at once (the viewer shows the load).
	openFresh openMode = iota
	// openReplace replaces the current document when the result arrives
	// (another page, a filter, the other view of a file); a failure leaves
	// it in place.
	openReplace
	// openPush keeps the current document to go back to (esc).
	openPush
)

// docLoadedMsg is a finished load for the viewer.
type docLoadedMsg struct {
	req Request
	doc *document
	err error
}

// loadEnv is what a load command may use, captured by value when the
// command is made: it never reads the model.
type loadEnv struct {
	ctx         context.Context
	rt          Runtime
	th          *theme.Theme
	displayPath func(string) string
	imgMode     common.ImageMode
}

// own is item unless it is a spill pointer to a path howl's spill store
// does not hold, which a server wrote into its own result: that one is an
// error in its place, so nothing opens the path (a key, a FIFO, a share
// on another host). A nil item stays nil.
func (env loadEnv) own(item render.Item) render.Item {
	sp, ok := item.(*render.SpillResult)
	if !ok || env.rt != nil && env.rt.HoldsSpill(sp.Path) {
		return item
	}
	return render.ForeignSpill(sp)
}

// loadDocCmd runs one request and turns its answer into a document,
// entirely off the update path: the MCP call, parsing, highlighting,
// opening or decoding a spill file.
func loadDocCmd(env loadEnv, id common.RequestID, req Request) tea.Cmd {
	return common.Deliver(common.OwnerViewer, id, func() tea.Msg {
		doc, err := buildDoc(env, req)
		if doc != nil {
			doc.id = id
		}
		return docLoadedMsg{req: req, doc: doc, err: err}
	})
}

// buildDoc builds a request's document; a read, call or prompt keeps the
// exact JSON the server sent (R shows it).
func buildDoc(env loadEnv, req Request) (*document, error) {
	if req.kind != reqRead && req.kind != reqCall && req.kind != reqPrompt {
		return buildDocOf(env, req)
	}
	var capture *mcp.RawCapture
	env.ctx, capture = mcp.WithRawCapture(env.ctx)
	doc, err := buildDocOf(env, req)
	if doc != nil {
		doc.raw = capturedRaw(capture)
	}
	return doc, err
}

func buildDocOf(env loadEnv, req Request) (*document, error) {
	switch req.kind {
	case reqRead:
		args := map[string]any{"uri": req.uri}
		if len(req.args) > 0 {
			args["arguments"] = req.args
		}
		if req.pattern != "" {
			args["pattern"] = req.pattern
		}
		if req.offset > 0 {
			args["offset"] = req.offset
		}
		b, _ := json.Marshal(args)
		out, err := env.rt.CallMeta(env.ctx, mcp.PrefixRead+mcp.FunctionSuffix(req.server), b)
		if err != nil {
			return nil, err
		}
		return readDoc(env, req, out)
	case reqCall:
		args := map[string]any{"tool": req.tool}
		if req.keyValues != nil {
			var schema json.RawMessage
			if cat, err := env.rt.Catalog(env.ctx, req.server, false); err == nil {
				if it, ok := cat.Lookup(mcp.KindTool, req.tool); ok {
					schema = it.Schema
				}
			}
			req.toolArgs = mcp.TypeKeyValues(schema, req.keyValues)
		}
		if req.toolArgs != nil {
			args["arguments"] = req.toolArgs
		}
		b, _ := json.Marshal(args)
		out, err := env.rt.CallMeta(env.ctx, mcp.PrefixInvoke+mcp.FunctionSuffix(req.server), b)
		if err != nil {
			return nil, err
		}
		return toolDoc(env, req, out), nil
	case reqPrompt:
		res, err := env.rt.GetPrompt(env.ctx, req.server, req.prompt, req.promptArgs)
		if err != nil {
			return nil, err
		}
		return promptDoc(env, req, res), nil
	case reqSpill:
		return spillDoc(env, req.title, req.spill, req.asHex)
	case reqText:
		return textDoc(env, req), nil
	}
	return nil, fmt.Errorf("unknown request kind %d", req.kind)
}

// readDoc turns the bytes of a read (exactly what the model receives) into
// a document, decoding them through render's own wire contract.
func readDoc(env loadEnv, req Request, out []byte) (*document, error) {
	res, err := render.DecodeRead(out)
	if err != nil {
		return nil, fmt.Errorf("the read result is not one howl renders (%v): this is a bug in howl, please report it", err)
	}
	for i, it := range res.Items {
		res.Items[i] = env.own(it)
	}
	// The audience annotation leads a read's JSON (mcp puts it first).
	var ann struct {
		Audience []string `json:"audience"`
	}
	_ = json.Unmarshal(out, &ann)
	audience := ""
	if len(ann.Audience) > 0 {
		audience = "for " + render.SanitizeLine(strings.Join(ann.Audience, ", "))
	}
	if res.ItemsTotal == 1 && len(res.Items) == 1 {
		d, err := itemDoc(env, req, res.Items[0])
		if d != nil && audience != "" && len(d.meta) > 0 {
			d.meta[0] += " · " + audience
		}
		return d, err
	}
	d := &document{kind: docRich, title: titleFor(req)}
	d.note = render.SanitizeLine(res.Note)
	if audience != "" {
		d.meta = append(d.meta, audience)
	}
	var b richBuilder
	b.env = env
	for i, it := range res.Items {
		if env.ctx.Err() != nil {
			break // cancelled or replaced: the document is dropped unseen
		}
		b.readItem(i+1, req.server, it)
	}
	d.lines, d.atts, d.copyText = b.lines, b.atts, b.copy.String()
	return d, nil
}

// itemDoc is the document of a single-item read.
func itemDoc(env loadEnv, req Request, item render.Item) (*document, error) {
	var it *render.TextResult
	switch x := item.(type) {
	case *render.ItemError:
		return nil, &render.Error{Code: x.Code, Message: x.Message}
	case *render.SpillResult:
		return spillDoc(env, titleFor(req), x, false)
	case *render.OmittedItems:
		return &document{kind: docRich, title: titleFor(req), note: render.SanitizeLine(x.Note)}, nil
	case *render.TextResult:
		it = x
	default:
		return nil, fmt.Errorf("a read item of type %T: this is a bug in howl, please report it", item)
	}
	d := &document{kind: docText, title: titleFor(req), gutter: true}
	mt := it.MimeType
	if mt == "" {
		mt = "no mime type"
	}
	d.meta = []string{render.SanitizeLine(mt)}
	if it.Sniffed {
		d.meta[0] += " · binary that decoded as UTF-8 text"
	}
	d.note = render.SanitizeLine(pageNote(it, req))
	first := req.firstLine
	if req.offset == 0 {
		first = 1
	}
	d.src = &readSource{server: req.server, uri: req.uri, args: req.args, pattern: req.pattern, offset: req.offset,
		next: it.NextOffset, total: it.TotalBytes, firstLine: first, continued: req.continued, history: req.history}
	clean := common.ExpandTabs(render.Sanitize(it.Text))
	d.copyText = clean
	style := func(s string) []string { return common.Highlight(s, common.LexerFor(it.MimeType, it.URI), env.th) }
	if common.IsLog(it.MimeType, it.URI, clean) {
		style = func(s string) []string { return common.HighlightLog(s, env.th) }
	}
	if req.pattern != "" {
		d.lines = grepLines(clean, env.th, style)
		return d, nil
	}
	d.lines = numberLines(clean, style(clean), first)
	if req.continued && len(d.lines) > 0 {
		d.lines[0].mark = '~'
	}
	return d, nil
}

// pageNote says which bytes the page holds, of how many, and how to move.
func pageNote(it *render.TextResult, req Request) string {
	if it.TotalBytes == 0 {
		return it.Note
	}
	end := req.offset + len(it.Text)
	if it.NextOffset != nil {
		end = *it.NextOffset
	}
	page, pages := pageNumbers(req.offset, it.TotalBytes)
	s := fmt.Sprintf("bytes %d–%d of %d", req.offset, end, it.TotalBytes)
	if it.TotalBytes >= 1024 {
		s += " (" + render.HumanBytes(int64(it.TotalBytes)) + ")"
	}
	if req.pattern != "" {
		// Quoted as typed: %q would double every backslash of a regexp.
		s = fmt.Sprintf("%d of %d lines match \"%s\" · ", deref(it.MatchedLines), deref(it.TotalLines), render.SanitizeLine(req.pattern)) + s + " filtered"
	}
	if pages > 1 {
		s += fmt.Sprintf(" · page %d of %d", page, pages)
	} else {
		s += " · complete"
	}
	return s
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// pageNumbers estimates the page of offset and the page count, for pages
// of render.DefaultMaxBytes (exact for ASCII text).
func pageNumbers(offset, total int) (page, pages int) {
	size := render.DefaultMaxBytes
	pages = max((total+size-1)/size, 1)
	page = min(offset/size+1, pages)
	return page, pages
}

// numberLines pairs plain and styled lines and numbers them from first,
// splitting overlong lines into unnumbered continuation chunks.
func numberLines(plain string, styled []string, first int) []docLine {
	pl := strings.Split(plain, "\n")
	if len(pl) > 1 && pl[len(pl)-1] == "" {
		pl = pl[:len(pl)-1]
	}
	out := make([]docLine, 0, len(pl))
	for i, p := range pl {
		s := p
		if i < len(styled) {
			s = styled[i]
		}
		num := 0
		if first > 0 {
			num = first + i
		}
		out = appendLine(out, docLine{num: num, plain: p, styled: s})
	}
	return out
}

// appendLine adds a line, cut into chunks of maxLineCells.
func appendLine(out []docLine, l docLine) []docLine {
	l.width = common.WidthOf(l.plain)
	if l.width <= common.MaxLineCells {
		return append(out, l)
	}
	for start := 0; start < l.width; start += common.MaxLineCells {
		chunk := l
		if start > 0 {
			chunk.num, chunk.mark = 0, 0
		}
		chunk.plain = common.CutCells(l.plain, start, start+common.MaxLineCells)
		chunk.styled = common.CutCells(l.styled, start, start+common.MaxLineCells)
		chunk.width = common.WidthOf(chunk.plain)
		out = append(out, chunk)
	}
	return out
}

// grepLines reads the pattern filter's output ("12:text" for a match,
// "12-text" for context, "--" between groups) into numbered lines. Matched
// lines are styled like the unfiltered text (style), context lines dim.
func grepLines(text string, th *theme.Theme, style func(string) []string) []docLine {
	st := th.Styles
	raw := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	lines := make([]docLine, len(raw))
	bodies := make([]string, len(raw))
	for k, l := range raw {
		if l == "--" {
			lines[k] = docLine{styled: st.Subtle.Render("⋯")}
			continue
		}
		i := 0
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(l) || (l[i] != ':' && l[i] != '-') {
			lines[k] = docLine{plain: l, styled: l}
			continue
		}
		n, _ := strconv.Atoi(l[:i])
		lines[k] = docLine{num: n, mark: l[i], plain: l[i+1:]}
		bodies[k] = l[i+1:]
	}
	styled := style(strings.Join(bodies, "\n"))
	var out []docLine
	for k, l := range lines {
		switch {
		case l.mark == '-':
			l.styled = st.Muted.Render(l.plain)
		case l.mark == ':' && k < len(styled):
			l.styled = styled[k]
		}
		out = appendLine(out, l)
	}
	return out
}

// titleFor names a request in the viewer's border.
func titleFor(req Request) string {
	if req.title != "" {
		return req.title
	}
	switch req.kind {
	case reqCall:
		return "tool " + render.SanitizeLine(req.tool)
	case reqPrompt:
		return "prompt " + render.SanitizeLine(req.prompt)
	}
	if len(req.args) > 0 {
		if u, err := mcp.ExpandTemplate(req.uri, req.args); err == nil {
			return render.SanitizeLine(u)
		}
	}
	return render.SanitizeLine(req.uri)
}

// errorDoc shows a failed request.
func errorDoc(id common.RequestID, title string, err error) *document {
	msg := render.Sanitize(err.Error())
	var ce *mcp.CallError
	kind := "the request failed"
	if errors.As(err, &ce) {
		kind = "howl refused the request"
	}
	// Wrapped: an error is read once, whole, not scrolled sideways.
	d := &document{kind: docError, title: title, note: kind, id: id, wrap: true}
	d.copyText = msg
	for _, l := range strings.Split(msg, "\n") {
		d.lines = append(d.lines, docLine{plain: l, styled: l, width: common.WidthOf(l)})
	}
	return d
}

// spillDoc opens a spill file: an image when it decodes as one (and asHex
// is false), else the hex view. Only the file's header is read here.
func spillDoc(env loadEnv, title string, sp *render.SpillResult, asHex bool) (*document, error) {
	d := &document{title: title, spill: sp}
	if d.title == "" {
		d.title = render.SanitizeLine(sp.URI)
	}
	if d.title == "" {
		d.title = env.displayPath(sp.Path)
	}
	d.meta = spillMeta(env.displayPath, sp)
	d.copyText = sp.Path
	if !asHex && looksLikeImage(sp) {
		img, err := openImage(sp.Path, env.imgMode)
		if err == nil {
			d.kind, d.img = docImage, img
			d.note = fmt.Sprintf("%s image, %d×%d px · x: hex view", img.format, img.w, img.h)
			if img.repaired {
				d.note += " · drawn without its damaged colour profile or text chunk"
			}
			return d, nil
		}
		d.note = render.SanitizeLine(err.Error()) + " · showing the bytes"
	}
	hs, err := openHex(sp.Path)
	if err != nil {
		return nil, err
	}
	d.kind, d.hex = docHex, hs
	switch {
	case d.note != "":
	case looksLikeImage(sp):
		d.note = "hex view of the image's bytes · x: image view"
	default:
		d.note = "hex view of the spilled bytes"
	}
	return d, nil
}

// spillMeta is the metadata every spill view shows: path, MIME type, size
// and digest.
func spillMeta(displayPath func(string) string, sp *render.SpillResult) []string {
	return []string{
		"path   " + render.SanitizeLine(displayPath(sp.Path)),
		fmt.Sprintf("mime   %s · %s", common.OrDash(render.SanitizeLine(sp.MimeType)), common.SizeText(sp.SizeBytes)),
		"sha256 " + render.SanitizeLine(sp.SHA256),
	}
}

// looksLikeImage reports a spill howl can draw: PNG, JPEG or GIF, by MIME
// type or by the file's magic bytes.
func looksLikeImage(sp *render.SpillResult) bool {
	switch strings.ToLower(sp.MimeType) {
	case "image/png", "image/jpeg", "image/jpg", "image/gif":
		return true
	}
	f, err := os.Open(sp.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := f.Read(head)
	head = head[:n]
	return bytes.HasPrefix(head, []byte("\x89PNG")) || bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}) || bytes.HasPrefix(head, []byte("GIF8"))
}
