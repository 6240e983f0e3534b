package render

import (
	"encoding/json"
	"fmt"
)

// DecodeItem parses one rendered item from its wire form back into its
// type: a *SpillResult ("spilled"), an *ItemError ("error"), an
// *OmittedItems ("omitted") or a *TextResult. Callers that show a read
// (the CLI's plain output, the TUI) use it, so no one keeps a copy of the
// wire shape.
func DecodeItem(raw json.RawMessage) (Item, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("a rendered item is a JSON object: %w", err)
	}
	var it Item
	switch {
	case probe["spilled"] != nil:
		it = &SpillResult{}
	case probe["error"] != nil:
		it = &ItemError{}
	case probe["omitted"] != nil:
		it = &OmittedItems{}
	default:
		it = &TextResult{}
	}
	if err := json.Unmarshal(raw, it); err != nil {
		return nil, fmt.Errorf("decoding a rendered item: %w", err)
	}
	return it, nil
}

// DecodeRead parses the wire form of a ReadResult: one bare item, or the
// {items_total, items_shown, note, items} envelope.
func DecodeRead(raw []byte) (*ReadResult, error) {
	var env struct {
		ItemsTotal *int              `json:"items_total"`
		ItemsShown int               `json:"items_shown"`
		Note       string            `json:"note"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("a rendered read is a JSON object: %w", err)
	}
	if env.ItemsTotal == nil {
		it, err := DecodeItem(raw)
		if err != nil {
			return nil, err
		}
		return &ReadResult{ItemsTotal: 1, ItemsShown: 1, Items: []Item{it}}, nil
	}
	r := &ReadResult{ItemsTotal: *env.ItemsTotal, ItemsShown: env.ItemsShown, Note: env.Note}
	for _, x := range env.Items {
		it, err := DecodeItem(x)
		if err != nil {
			return nil, err
		}
		r.Items = append(r.Items, it)
	}
	return r, nil
}
