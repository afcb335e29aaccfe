package render

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// The assistant's markdown, to HTML: goldmark (CommonMark and GitHub's
// tables, strikethrough, autolinks and task lists) with three changes,
// because a run's text is not ours to trust:
//   - raw HTML in it is shown as text (goldmark's safe mode drops it,
//     which would hide what the model wrote);
//   - an image is shown as its text and address, never loaded (a page must
//     not reach the network);
//   - a link to a javascript:, vbscript: or data: address (which
//     goldmark's safe mode makes a link to nowhere, <a href="">) is shown
//     as it was written, as text; other links are goldmark's.
//
// It is stateless once built, so one is shared by every renderer.
var markdownToHTML = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(textForRisky{}, 100)),
		),
	)
})

// textForRisky renders raw HTML and images as text.
type textForRisky struct{}

func (textForRisky) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
}

// goldmarkLinks are goldmark's own renderers of links, which a safe link
// keeps.
var goldmarkLinks = sync.OnceValue(func() funcsByKind {
	m := funcsByKind{}
	gmhtml.NewRenderer().RegisterFuncs(m)
	return m
})

// funcsByKind collects the renderers a NodeRenderer registers.
type funcsByKind map[ast.NodeKind]renderer.NodeRendererFunc

func (m funcsByKind) Register(k ast.NodeKind, f renderer.NodeRendererFunc) { m[k] = f }

func renderLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	l := n.(*ast.Link)
	if !gmhtml.IsDangerousURL(l.Destination) {
		return goldmarkLinks()[ast.KindLink](w, src, n, entering)
	}
	if entering {
		w.WriteString("[")
	} else {
		w.WriteString("](" + htmlText(string(l.Destination)) + ")")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	l := n.(*ast.AutoLink)
	if !gmhtml.IsDangerousURL(util.URLEscape(l.URL(src), false)) {
		return goldmarkLinks()[ast.KindAutoLink](w, src, n, entering)
	}
	if entering {
		w.WriteString("&lt;" + htmlText(string(l.Label(src))) + "&gt;")
	}
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		w.WriteString(escMulti(string(s.Value(src))))
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	var text bytes.Buffer
	for i := 0; i < b.Lines().Len(); i++ {
		l := b.Lines().At(i)
		text.Write(l.Value(src))
	}
	if b.HasClosure() {
		text.Write(b.ClosureLine.Value(src))
	}
	w.WriteString(`<pre class="raw-html">` + escMulti(text.String()) + "</pre>\n")
	return ast.WalkContinue, nil
}

func renderImage(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	img := n.(*ast.Image)
	var alt bytes.Buffer
	for c := img.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			alt.Write(t.Segment.Value(src))
		}
	}
	w.WriteString(`<span class="image">[image: ` + htmlText(alt.String()) + `] <code>` +
		htmlText(string(img.Destination)) + `</code></span>`)
	return ast.WalkSkipChildren, nil
}

// proseHTML renders a run's markdown text as HTML, its controls and bidi
// overrides made visible first (Sanitize); a text goldmark cannot render
// is shown as text.
func proseHTML(s string) string {
	var b bytes.Buffer
	if err := markdownToHTML().Convert([]byte(Sanitize(s, true)), &b); err != nil {
		return "<pre>" + escMulti(s) + "</pre>"
	}
	return b.String()
}
