package common

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/howl-mcp/howl/render"
)

// JSONPrefix writes what json.Marshal writes, cut at the limit on a
// character boundary, and says whether it is whole.
func TestJSONPrefixIsTheStartOfJSONMarshal(t *testing.T) {
	values := []any{
		nil, true, 3.5, 1e21, "a <b> & \"c\"\n", "héllo wörld ✓",
		[]any{}, map[string]any{},
		[]any{"x", 1.0, nil, []any{false}},
		map[string]any{"zeta": "last", "alpha": []any{1.0, "二"}, "mid": map[string]any{"k": "v"}},
		strings.Repeat("ü", 100),
	}
	for _, v := range values {
		full, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for limit := range len(full) + 2 {
			got, whole := JSONPrefix(v, limit)
			want := string(full)
			if len(want) > limit {
				want = want[:render.RuneBoundary(want, limit)]
			}
			if got != want || whole != (len(full) <= limit) {
				t.Fatalf("JSONPrefix(%s, %d) = %q (whole %v), want %q (whole %v)", full, limit, got, whole, want, len(full) <= limit)
			}
		}
	}
}
