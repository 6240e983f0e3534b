package render

import (
	"encoding/json"
	"fmt"
)

// clampMeta clamps a server-supplied metadata string (a URI, MIME type or
// name) to MaxMetaString bytes at a character boundary, ending it with a
// marker that names shown-of-total. The marker is inside the limit.
func clampMeta(s string) string {
	if len(s) <= MaxMetaString {
		return s
	}
	marker := func(kept int) string {
		return fmt.Sprintf("…[clamped: showing %d of %d bytes; metadata strings are limited to %d]",
			kept, len(s), MaxMetaString)
	}
	keep := roundBackward(s, MaxMetaString-len(marker(MaxMetaString)))
	return s[:keep] + marker(keep)
}

// clampJSONStrings clamps every string (member names included) longer than
// MaxMetaString inside the valid JSON value raw, leaving every other byte as
// it was. It returns raw itself and 0 when nothing needed clamping.
func clampJSONStrings(raw []byte) ([]byte, int) {
	var out []byte
	clamped, copied := 0, 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		lit := raw[i:min(j+1, len(raw))]
		if len(lit) > MaxMetaString+2 {
			var s string
			if json.Unmarshal(lit, &s) == nil && len(s) > MaxMetaString {
				out = append(out, raw[copied:i]...)
				out = append(out, mustMarshal(clampMeta(s))...)
				copied = j + 1
				clamped++
			}
		}
		i = j
	}
	if clamped == 0 {
		return raw, 0
	}
	return append(out, raw[copied:]...), clamped
}
