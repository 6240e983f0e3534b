package catalog

import "github.com/howl-mcp/howl/mcp"

// MaxNewMarkBytes bounds one server's marks of new items: each mark
// holds its item's kind and id and costs markUpkeep bytes more (its map
// slot and string headers), so at most 16,384 marks, fewer for long ids.
// A server that renames all its items on every list_changed would
// otherwise have the catalog mark them all each time (120,000 at the
// demo's --scale). Past it, the rest of a change's items are not marked:
// their rows show no +, and the tab's count says it is a floor (100,000
// resources renamed to ids like the scaled demo's, demo://scale/000001:
// "Resources 100000 +11522+ new"). Marks also go with their items: a
// listing drops the marks of the items it does not hold, so once it
// lands a server has no more marks than items.
const MaxNewMarkBytes = 1 << 20

// markUpkeep is what a mark costs beyond its key's bytes.
const markUpkeep = 64

// markKey names one of a server's items: mcp's Key in parts, looked up
// without building a string.
type markKey struct {
	kind mcp.Kind
	id   string
}

func (k markKey) cost() int { return len(k.kind) + len(k.id) + markUpkeep }

// newMarks are one server's items that a list_changed brought and the
// person has not yet had the cursor on.
type newMarks struct {
	set map[markKey]struct{}
	// bytes is what set holds, by cost (at most MaxNewMarkBytes).
	bytes int
	// shown counts, by kind, the marks whose item is in the listing
	// shown: its entries flagged fresh. A mark a change adds before its
	// item is listed waits for the listing.
	shown [numKinds]int
	// capped marks the kinds of which some new items were left unmarked
	// (MaxNewMarkBytes), until none of that kind is marked.
	capped [numKinds]bool
}

// kindOf is the tab of a kind, and whether it is one.
func kindOf(k mcp.Kind) (int, bool) {
	i := kindIndex(k)
	return i, mcp.Kinds[i] == k
}

// entryOf is sv's shown entry of k, or nil: found by the listing's index,
// whatever the size of the catalog.
func (sv *Server) entryOf(k markKey) *Entry {
	if sv.cat == nil {
		return nil
	}
	if j, ok := sv.cat.Position(k.kind, k.id); ok && j < len(sv.slab) {
		return &sv.slab[j]
	}
	return nil
}

// mark marks k new, and its entry when it is shown, unless the marks are
// full.
func (sv *Server) mark(k markKey) {
	m := &sv.marks
	i, ok := kindOf(k.kind)
	if _, had := m.set[k]; had || !ok {
		return
	}
	if m.bytes+k.cost() > MaxNewMarkBytes {
		m.capped[i] = true
		return
	}
	if m.set == nil {
		m.set = map[markKey]struct{}{}
	}
	m.set[k] = struct{}{}
	m.bytes += k.cost()
	if e := sv.entryOf(k); e != nil && !e.fresh {
		e.fresh = true
		m.shown[i]++
	}
}

// unmark clears k's mark, and its entry's when it is shown.
func (sv *Server) unmark(k markKey) {
	m := &sv.marks
	if _, had := m.set[k]; !had {
		return
	}
	delete(m.set, k)
	m.bytes -= k.cost()
	i := kindIndex(k.kind)
	if e := sv.entryOf(k); e != nil && e.fresh {
		e.fresh = false
		m.shown[i]--
	}
	if m.shown[i] == 0 { // whether or not this mark was shown
		m.capped[i] = false
	}
	if len(m.set) == 0 {
		m.set = nil // a map keeps its size; a new one starts small
	}
}

// showMarks applies the marks to the listing that just landed, on the
// update path from the marks as they are now (a mark cleared while the
// listing ran stays cleared): each mark's entry is flagged and counted,
// and the marks of items it does not hold are dropped. The work is one
// index lookup a mark, none when nothing is marked.
func (sv *Server) showMarks() {
	m := &sv.marks
	m.shown = [numKinds]int{}
	for k := range m.set {
		e := sv.entryOf(k)
		if e == nil {
			delete(m.set, k)
			m.bytes -= k.cost()
			continue
		}
		e.fresh = true
		m.shown[kindIndex(k.kind)]++
	}
	for i, n := range m.shown {
		if n == 0 {
			m.capped[i] = false
		}
	}
	if len(m.set) == 0 {
		m.set = nil
	}
}

// unshow forgets which marks are shown, when the server's entries go;
// the marks stay for its next listing.
func (m *newMarks) unshow() { m.shown = [numKinds]int{} }
