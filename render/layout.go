package render

import (
	"fmt"
	"strings"
)

// part is one item of a response awaiting layout. A text part can be
// rendered at any page size; any other part has one fixed rendering.
type part struct {
	// want is the page size a text part asks for; 0 marks a fixed part.
	want int
	// render returns the item and its serialization at a page size.
	render func(page int) (Item, []byte)

	page int // page size of the cached rendering
	item Item
	out  []byte
}

// at renders p at page size page, reusing the last rendering when it can,
// and returns its serialized size.
func (p *part) at(page int) int {
	if p.out == nil || p.page != page {
		p.item, p.out = p.render(page)
		p.page = page
	}
	return len(p.out)
}

// minShownText is the smallest page a text part is shown at when the
// response ceiling forces it below the page it asked for: a text part that
// cannot get even this much is omitted rather than shown as a sliver.
const minShownText = 1024

// layout decides which of n parts fit into room serialized bytes (a
// separator byte per part included). It returns one entry per item: the part
// in its final rendering, or nil when the item is omitted.
//
// Fixed parts (spill descriptions, errors, metadata) are placed first, in
// order, because they are small and losing one loses the only pointer to a
// spilled file; at the first that does not fit, it and every later item are
// omitted, and later items are not even rendered (or spilled). Text parts
// then share what is left, in order: each gets its whole page if it fits,
// else is shortened to fit (not below minShownText), else is omitted.
func layout(n, room int, newPart func(i int) *part) []*part {
	parts := make([]*part, n)
	used := 0
	for i := range n {
		p := newPart(i)
		if p.want > 0 {
			parts[i] = p
			continue
		}
		size := p.at(0) + 1
		if used+size > room {
			break
		}
		used += size
		parts[i] = p
	}
	for i, p := range parts {
		if p == nil || p.want == 0 {
			continue
		}
		if fitText(p, room-used) {
			used += len(p.out) + 1
		} else {
			parts[i] = nil
		}
	}
	return parts
}

// fitText renders text part p at the largest page, up to its wanted page,
// whose serialization (plus a separator) fits avail bytes. It reports false
// when not even a minShownText page fits.
func fitText(p *part, avail int) bool {
	if p.at(p.want)+1 <= avail {
		return true
	}
	floor := min(p.want, minShownText)
	if p.at(floor)+1 > avail {
		return false
	}
	// Scale the page by the share of its serialization that fits (escaping
	// can make a page serialize to several times its size), less a little
	// for digits in the note; each step shrinks the page, so it ends.
	for target := p.want; ; {
		size := p.at(target) + 1
		if size <= avail {
			return true
		}
		if target = int(int64(target)*int64(avail)/int64(size)) - 16; target <= floor {
			p.at(floor)
			return true
		}
	}
}

// omittedNote states which items the response ceiling left out, as
// shown-of-total plus their positions (0-based, as ranges, bounded).
func omittedNote(parts []*part, what string) (string, int) {
	var ranges []string
	omitted := 0
	for i := 0; i < len(parts); i++ {
		if parts[i] != nil {
			continue
		}
		j := i
		for j+1 < len(parts) && parts[j+1] == nil {
			j++
		}
		omitted += j - i + 1
		switch {
		case len(ranges) == maxListedRanges:
			ranges = append(ranges, "…")
		case len(ranges) > maxListedRanges:
		case i == j:
			ranges = append(ranges, fmt.Sprint(i))
		default:
			ranges = append(ranges, fmt.Sprintf("%d-%d", i, j))
		}
		i = j
	}
	if omitted == 0 {
		return "", 0
	}
	return fmt.Sprintf("%d of %d %s omitted: response ceiling %d bytes (omitted positions, from 0: %s)",
		omitted, len(parts), what, MaxResponseBytes, strings.Join(ranges, ", ")), omitted
}

// maxListedRanges bounds the lists inside a note (omitted positions, tool
// result caveats), so no note grows with the input.
const maxListedRanges = 10
