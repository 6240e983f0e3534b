package common

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// glamour's cost does not grow with the bytes it is given, and the bytes
// are all that MaxStreamingBlockBytes and AsyncMarkdownBytes bound: a few
// shapes of Markdown a model can write (steered by a tool result's text,
// say) cost it far more than their size. Measured at width 100:
//   - nested quotes or lists: each level indents; once the indent passes
//     the width, the output grows about 1.27 times a level, so 120 ">"
//     (124 bytes) grew past 20 GB and the process was killed;
//   - a long word (no space to wrap at): its cost grows with its length
//     squared, and faster with styles in it (8,000 letters 0.37 s, 2,000
//     emphasised letters 0.52 s, and a streaming answer's tail is drawn
//     again on every token);
//   - a fenced code block's language name: chroma matches an unknown one
//     against every lexer's file patterns, about 1.1 ms a byte;
//   - styled spans (emphasis, links, code) packed densely: about 30 us
//     each, so 2,000 in an 8 KiB tail cost 60 ms a token.
//
// Markdown with any of these is drawn as plain wrapped text instead.
const (
	// MaxMarkdownDepth bounds the nesting of quotes and lists glamour
	// draws, and so does the width: each level takes up to 4 cells.
	MaxMarkdownDepth = 12
	// MaxMarkdownWordBytes bounds a run of bytes with no white space (a
	// URL is far shorter; base64 is not).
	MaxMarkdownWordBytes = 1024
	// MaxFenceLanguageBytes bounds a code block's language name; it must
	// also be made of letters, digits and "_+#.-" (a lexer's name).
	MaxFenceLanguageBytes = 32
	// MaxStyledSpans is how many styled spans glamour draws at any density;
	// past it, at most one every styledSpanBytes bytes.
	MaxStyledSpans  = 256
	styledSpanBytes = 16
)

// mdParser parses as glamour does (GFM and definition lists), to look at
// the tree before glamour draws it.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()

// markdownTooCostly reports whether src has a shape glamour draws at a
// cost far beyond its size at width w (see MaxMarkdownDepth and the
// others). It parses src once, which is linear in it.
func markdownTooCostly(src []byte, w int) bool {
	run := 0
	for _, c := range src {
		if run++; c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			run = 0
		} else if run > MaxMarkdownWordBytes {
			return true
		}
	}
	doc := mdParser.Parse(text.NewReader(src))
	maxDepth := min(MaxMarkdownDepth, max(w/4, 1))
	maxSpans := max(MaxStyledSpans, len(src)/styledSpanBytes)
	costly := false
	var depth, spans int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.Blockquote, *ast.List:
			if entering {
				depth++
			} else {
				depth--
			}
			if depth > maxDepth {
				costly = true
			}
		case *ast.FencedCodeBlock:
			if entering && !lexerName(n.Language(src)) {
				costly = true
			}
		case *ast.Emphasis, *ast.Link, *ast.AutoLink, *ast.CodeSpan, *ast.Image:
			if spans++; entering && spans > 2*maxSpans { // counted entering and leaving
				costly = true
			}
		}
		if costly {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return costly
}

// lexerName reports whether a code block's language can be a lexer's
// name, which chroma looks up cheaply.
func lexerName(lang []byte) bool {
	if len(lang) > MaxFenceLanguageBytes {
		return false
	}
	for _, c := range lang {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '#' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
