package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// --elicit=defaults answers with the schema's defaults, but only when they
// fill every required field: otherwise accepting would send an answer the
// server's own schema rejects, so howl declines. URL requests are
// declined: nobody is there to visit them.
func TestElicitWithDefaultsAcceptsOnlyWhatTheDefaultsCanFill(t *testing.T) {
	cases := []struct {
		schema string
		want   string
		fields int // in the accepted content
	}{
		{`{"type":"object","properties":{"n":{"type":"integer","default":3},"s":{"type":"string"}},"required":["n"]}`, ElicitAccept, 1},
		{`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":3}},"required":["name"]}`, ElicitDecline, 0},
		{`{"type":"object","properties":{}}`, ElicitAccept, 0},
	}
	for _, c := range cases {
		resp, err := ElicitWithDefaults(context.Background(), "s", ElicitRequest{Mode: "form", Schema: json.RawMessage(c.schema)})
		if err != nil || resp.Action != c.want {
			t.Errorf("%s: %+v, %v; want %s", c.schema, resp, err, c.want)
		}
		if len(resp.Content) != c.fields || c.fields > 0 && resp.Content["n"] != float64(3) {
			t.Errorf("%s: content %v, want %d field(s) with n = 3", c.schema, resp.Content, c.fields)
		}
	}
	if resp, _ := ElicitWithDefaults(context.Background(), "s", ElicitRequest{Mode: "url", URL: "https://example.com"}); resp.Action != ElicitDecline {
		t.Errorf("a URL request was answered %s", resp.Action)
	}
}
