package viewer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/howl-mcp/howl/mcp"
	"github.com/howl-mcp/howl/render"
	"github.com/howl-mcp/howl/tui/common"
)

// Rich documents: a tool result, a prompt or a multi-item read, drawn as
// labelled blocks with their files and links as attachments.

// toolDoc renders a bounded CallToolResult.
func toolDoc(env loadEnv, req Request, out []byte) *document {
	d := &document{kind: docRich, title: titleFor(req)}
	names, values := mcp.OrderedObject(out)
	var b richBuilder
	b.env = env
	var content []json.RawMessage
	var structured json.RawMessage
	for i, n := range names {
		switch n {
		case "howl_coverage":
			var cov render.ToolCoverage
			if json.Unmarshal(values[i], &cov) == nil {
				d.note = coverageNote(cov)
			}
		case "isError":
			_ = json.Unmarshal(values[i], &d.isError)
		case "content":
			_ = json.Unmarshal(values[i], &content)
		case "structuredContent":
			structured = values[i]
		}
	}
	if d.note == "" {
		d.note = fmt.Sprintf("The tool returned %s (%s), shown in full.", render.Count(len(content), "part"), common.SizeText(int64(len(out))))
	}
	d.meta = []string{"server " + render.SanitizeLine(req.server)}
	if d.isError {
		b.add(docLine{plain: "✗ the tool reported an error (isError: true)", styled: env.th.Styles.Viewer.Error.Render("✗ the tool reported an error (isError: true)")})
	}
	for i, raw := range content {
		if env.ctx.Err() != nil {
			break // cancelled or replaced: the document is dropped unseen
		}
		b.contentItem(i+1, req.server, raw)
	}
	if len(structured) > 0 && string(structured) != "null" {
		b.label("structured content")
		b.json(structured)
	}
	d.lines, d.atts, d.copyText = b.lines, b.atts, b.copy.String()
	return d
}

// coverageNote says to a person what howl did to a tool result too big
// or too binary to show as it came (the model reads cov.Note instead).
func coverageNote(cov render.ToolCoverage) string {
	s := fmt.Sprintf("The tool returned %s (%s).", render.Count(cov.ContentItems, "part"), common.SizeText(int64(cov.OriginalBytes)))
	if cov.ItemsShown < cov.ContentItems {
		s += fmt.Sprintf(" Only the first %d fit here.", cov.ItemsShown)
	}
	switch {
	case cov.ItemsChanged == 1:
		s += " One was too large or binary to show as it came: it says below what howl did with it."
	case cov.ItemsChanged > 1:
		s += fmt.Sprintf(" %d were too large or binary to show as they came: each says below what howl did with it.", cov.ItemsChanged)
	}
	// What else the model's note lists (parts that failed, clamped
	// metadata) follows its fixed opening.
	if _, more, ok := strings.Cut(cov.Note, "howl_note); "); ok {
		s += " Also: " + render.SanitizeLine(more) + "."
	}
	return s
}

// promptDoc renders a flattened prompt.
func promptDoc(env loadEnv, req Request, res *mcp.PromptResult) *document {
	d := &document{kind: docRich, title: titleFor(req)}
	d.note = render.SanitizeLine(res.Note)
	if res.Description != "" {
		d.meta = []string{render.SanitizeLine(res.Description)}
	}
	st := env.th.Styles
	text := common.ExpandTabs(render.Sanitize(res.Text))
	d.copyText = text
	var b richBuilder
	b.env = env
	for _, l := range strings.Split(text, "\n") {
		styled := l
		if l == "[user]" || l == "[assistant]" {
			styled = st.Viewer.Label.Render(l)
		}
		b.add(docLine{plain: l, styled: styled})
	}
	d.lines = b.lines
	return d
}

// richBuilder accumulates the lines of a rich document.
type richBuilder struct {
	env   loadEnv
	lines []docLine
	atts  []Attachment
	copy  strings.Builder
	// thumbs counts the images decoded to draw inline (MaxInlineImages).
	thumbs int
}

func (b *richBuilder) add(l docLine) { b.lines = appendLine(b.lines, l) }
func (b *richBuilder) blank()        { b.add(docLine{}) }

func (b *richBuilder) label(s string) {
	if len(b.lines) > 0 {
		b.blank()
	}
	b.add(docLine{plain: s, styled: b.env.th.Styles.Viewer.Label.Render(s)})
}

func (b *richBuilder) text(s string, lexerName string) {
	clean := common.ExpandTabs(render.Sanitize(s))
	if b.copy.Len() > 0 {
		b.copy.WriteString("\n")
	}
	b.copy.WriteString(clean)
	var styled []string
	if lexerName != "" {
		styled = common.Highlight(clean, lexers.Get(lexerName), b.env.th)
	} else {
		styled = strings.Split(clean, "\n")
	}
	for i, p := range strings.Split(clean, "\n") {
		s := p
		if i < len(styled) {
			s = styled[i]
		}
		b.add(docLine{plain: p, styled: s})
	}
}

func (b *richBuilder) json(raw []byte) { b.text(common.PrettyJSON(raw), "json") }

func (b *richBuilder) muted(s string) {
	s = render.SanitizeLine(s)
	b.add(docLine{plain: s, styled: b.env.th.Styles.Muted.Render(s)})
}

// spill adds a spilled file's metadata, an inline picture of an image, and
// registers the file as an Attachment.
func (b *richBuilder) spill(sp *render.SpillResult) {
	n := len(b.atts) + 1
	b.atts = append(b.atts, Attachment{label: render.SanitizeLine(sp.URI), spill: sp})
	for _, m := range spillMeta(b.env.displayPath, sp) {
		b.muted(m)
	}
	if looksLikeImage(sp) {
		b.thumbnail(sp.Path)
	}
	b.muted(fmt.Sprintf("o: open Attachment %d (image or hex view) · y copies its path", n))
}

// thumbnail draws the image at path inside the document, within
// MaxInlineImages and MaxInlineImagePixels, saying why when it does not.
// A result can carry hundreds of images of millions of pixels each that
// are a few KB on the wire (a blank 6000x6000 PNG is 5 KB), and each was
// decoded whole to draw a thumbnail: minutes of CPU before the document
// showed, which esc did not stop.
func (b *richBuilder) thumbnail(path string) {
	if b.env.ctx.Err() != nil {
		return // the load was cancelled or replaced: no one will see it
	}
	if b.thumbs >= MaxInlineImages {
		b.muted(fmt.Sprintf("no picture here: the first %d images of a document are drawn inline (MaxInlineImages)", MaxInlineImages))
		return
	}
	b.thumbs++
	w, h, err := imageSize(path)
	if err != nil {
		return // not an image howl can draw: the attachment's hex view shows its bytes
	}
	if w*h > MaxInlineImagePixels {
		b.muted(fmt.Sprintf("no picture here: the image is %d×%d, over MaxInlineImagePixels (%d) to draw inline", w, h, MaxInlineImagePixels))
		return
	}
	img, err := openImage(path, common.ImageHalfBlocks)
	if err != nil {
		return
	}
	cols, rows := fitImage(img.w, img.h, inlineImageCols, inlineImageRows)
	// plain is blank cells as wide as the picture: a line is drawn (and
	// wrapped) by its plain text's width, and an empty one drew the
	// picture as nothing.
	blank := strings.Repeat(" ", cols)
	for _, l := range renderImageCells(img.img, cols, rows, b.env.th) {
		b.add(docLine{plain: blank, styled: l})
	}
}

// inlineImageCols and inlineImageRows bound a picture inside a rich
// document; the image viewer (o) shows it as large as the pane.
const (
	inlineImageCols = 40
	inlineImageRows = 16
)

// MaxInlineImages bounds the images decoded to draw inline in one
// document, and MaxInlineImagePixels each one's size (read from its header
// before it is decoded). The others are listed as attachments that the
// image viewer (o) opens, up to MaxImagePixels.
const (
	MaxInlineImages      = 8
	MaxInlineImagePixels = 4_000_000
)

// readItem adds one item of a multi-item read.
func (b *richBuilder) readItem(n int, server string, item render.Item) {
	switch it := item.(type) {
	case *render.ItemError:
		b.label(fmt.Sprintf("[%d] error", n))
		b.errorLine(it.Message)
	case *render.SpillResult:
		b.label(fmt.Sprintf("[%d] %s · spilled", n, render.SanitizeLine(it.URI)))
		b.spill(it)
	case *render.OmittedItems:
		b.label(fmt.Sprintf("[%d] omitted", n))
		b.muted(it.Note)
	case *render.TextResult:
		b.label(fmt.Sprintf("[%d] %s · %s", n, render.SanitizeLine(it.URI), common.OrDash(render.SanitizeLine(it.MimeType))))
		b.muted(it.Note)
		b.text(it.Text, lexerName(it.MimeType, it.URI))
	}
}

// itemURI is the URI a rendered item names ("" for a marker).
func itemURI(item render.Item) string {
	switch it := item.(type) {
	case *render.TextResult:
		return it.URI
	case *render.SpillResult:
		return it.URI
	case *render.ItemError:
		return it.URI
	}
	return ""
}

// errorLine adds a server's error message, sanitized, in the error style.
// Both forms are the sanitized text: a search draws plain in styled's
// place on a line it hits.
func (b *richBuilder) errorLine(msg string) {
	msg = render.SanitizeLine(msg)
	b.add(docLine{plain: msg, styled: b.env.th.Styles.Viewer.Error.Render(msg)})
}

// lexerName is the chroma lexer name for a MIME type or name, or "".
func lexerName(mimeType, name string) string {
	if l := common.LexerFor(mimeType, name); l != nil {
		return l.Config().Name
	}
	return ""
}

// toolContent is the union of the content items of a bounded tool result.
type toolContent struct {
	Type     string          `json:"type"`
	Note     string          `json:"howl_note"`
	Text     *string         `json:"text"`
	MimeType string          `json:"mimeType"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	Spill    json.RawMessage `json:"spill"`
	Resource json.RawMessage `json:"resource"`
}

// contentItem adds one content item of a tool result.
func (b *richBuilder) contentItem(n int, server string, raw json.RawMessage) {
	var c toolContent
	if err := json.Unmarshal(raw, &c); err != nil {
		b.label(fmt.Sprintf("[%d] unreadable item", n))
		b.muted(err.Error())
		return
	}
	typ := render.SanitizeLine(c.Type)
	switch {
	case c.Type == "text" && c.Text != nil:
		b.label(fmt.Sprintf("[%d] text", n))
		if c.Note != "" {
			b.muted(c.Note)
		}
		if t := strings.TrimSpace(*c.Text); len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
			b.json([]byte(t)) // JSON text is shown formatted
			return
		}
		b.text(*c.Text, "")
	case len(c.Spill) > 0:
		// The spilled file, or the error that stands in its place.
		it, _ := render.DecodeItem(c.Spill)
		switch it := b.env.own(it).(type) {
		case *render.SpillResult:
			b.label(fmt.Sprintf("[%d] %s · %s", n, typ, common.OrDash(render.SanitizeLine(it.MimeType))))
			b.spill(it)
		case *render.ItemError:
			b.label(fmt.Sprintf("[%d] %s · not shown", n, typ))
			b.errorLine(it.Message)
		default:
			b.label(fmt.Sprintf("[%d] %s", n, typ))
			b.json(c.Spill)
		}
	case c.Type == "resource_link":
		b.label(fmt.Sprintf("[%d] link · %s", n, render.SanitizeLine(c.URI)))
		if c.Name != "" {
			b.muted(c.Name)
		}
		b.atts = append(b.atts, Attachment{label: render.SanitizeLine(c.URI), server: server, uri: c.URI})
		b.muted(fmt.Sprintf("o: open Attachment %d (read the linked resource)", len(b.atts)))
	case c.Type == "resource" && len(c.Resource) > 0:
		item, _ := render.DecodeItem(c.Resource) // nil when unreadable: shown as JSON
		item = b.env.own(item)
		b.label(fmt.Sprintf("[%d] embedded resource · %s", n, render.SanitizeLine(itemURI(item))))
		if c.Note != "" {
			b.muted(c.Note)
		}
		switch it := item.(type) {
		case *render.SpillResult:
			b.spill(it)
		case *render.ItemError:
			b.errorLine(it.Message)
		case *render.TextResult:
			b.text(it.Text, lexerName(it.MimeType, it.URI))
		default:
			b.json(c.Resource)
		}
	default:
		b.label(fmt.Sprintf("[%d] %s", n, typ))
		if c.Note != "" {
			b.muted(c.Note)
		}
		if c.Text != nil {
			b.text(*c.Text, "")
			return
		}
		b.json(raw)
	}
}

// textDoc is a document of text the TUI holds: JSON pretty-printed and
// highlighted, anything else as it is.
func textDoc(env loadEnv, req Request) *document {
	d := &document{kind: docRich, title: titleFor(req)}
	var b richBuilder
	b.env = env
	if json.Valid([]byte(req.text)) {
		b.json([]byte(req.text))
	} else {
		b.text(req.text, "")
	}
	d.lines = b.lines
	d.copyText = b.copy.String()
	if req.raw != nil {
		d.raw, d.rawView, d.note = req.raw, true, req.raw.note()
	}
	return d
}
