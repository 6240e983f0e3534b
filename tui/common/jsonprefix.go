package common

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/howl-mcp/howl/render"
)

// JSONPrefix is the start of v as compact JSON (as json.Marshal writes
// it), at most limit bytes, cut on a character boundary; whole says it is
// all of it. A server's data of any size costs about what is kept: the
// walk stops once limit bytes are written, and of a string only what fits
// is escaped (a map's keys are still sorted, as json.Marshal does).
// Values other than decoded JSON's (maps, slices, strings, numbers,
// booleans, nil) are marshalled whole.
func JSONPrefix(v any, limit int) (s string, whole bool) {
	w := jsonPrefix{limit: limit}
	w.value(v)
	out := w.b.String()
	if len(out) > limit {
		return out[:render.RuneBoundary(out, limit)], false
	}
	return out, !w.full
}

// jsonPrefix writes compact JSON until limit bytes are written.
type jsonPrefix struct {
	b     strings.Builder
	limit int
	full  bool // limit reached: nothing more is written
}

func (w *jsonPrefix) write(s string) {
	if w.full {
		return
	}
	w.b.WriteString(s)
	if w.b.Len() > w.limit {
		w.full = true
	}
}

func (w *jsonPrefix) value(v any) {
	if w.full {
		return
	}
	switch v := v.(type) {
	case string:
		room := w.limit - w.b.Len() // each byte escapes to one byte or more
		cut := len(v) > room
		if cut {
			v = v[:render.RuneBoundary(v, room)]
		}
		b, _ := json.Marshal(v)
		if cut {
			b = b[:len(b)-1] // no closing quote: the string goes on
		}
		w.b.Write(b)
		w.full = cut || w.b.Len() > w.limit
	case []any:
		w.write("[")
		for i, e := range v {
			if i > 0 {
				w.write(",")
			}
			w.value(e)
			if w.full {
				return
			}
		}
		w.write("]")
	case map[string]any:
		w.write("{")
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				w.write(",")
			}
			w.value(k)
			w.write(":")
			w.value(v[k])
			if w.full {
				return
			}
		}
		w.write("}")
	default:
		if b, err := json.Marshal(v); err == nil {
			w.write(string(b))
		} else {
			w.write(fmt.Sprint(v))
		}
	}
}
