package main

import (
	"fmt"
	"io"
	"strings"
)

// markdown writes the report as the README's table: one line a
// comparison, with howl, the floor and the peers side by side and the
// verdicts of its goals.
func (r report) markdown(w io.Writer) {
	fmt.Fprintf(w, "howlbench, %d counted runs a subject after a warm-up, subjects alternating; %s; %s%s.\n\n", r.Runs, r.Machine, r.Date, r.load())
	fmt.Fprintln(w, "| comparison | howl | floor | peer(s) | result |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, res := range r.Results {
		if res.Name == "context-economy" {
			continue // a table of its own
		}
		title := res.Title
		if res.Regime != "" {
			title += " (" + strings.TrimSuffix(strings.SplitN(res.Regime, ":", 2)[0], ":") + ")"
		}
		var howl, floor, peer []string
		for _, row := range res.Rows {
			cell := cellOf(row)
			switch row.Role {
			case roleFloor:
				floor = append(floor, cell)
			case rolePeer:
				peer = append(peer, cell)
			default:
				howl = append(howl, cell)
			}
		}
		result := strings.Join(res.Notes, "; ")
		if len(res.Skipped) > 0 {
			result = strings.TrimPrefix(result+"; skipped: "+strings.Join(res.Skipped, "; "), "; ")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdEscape(title), mdEscape(strings.Join(howl, "<br>")), mdEscape(strings.Join(floor, "<br>")), mdEscape(strings.Join(peer, "<br>")), mdEscape(result))
	}
}

// cellOf is one subject's median, and its peaks when known.
func cellOf(row Row) string {
	s := fmt.Sprintf("%s: %s", row.Subject, fmtVal(row.Median, row.Unit))
	var mem []string
	if row.PeakMB != nil {
		mem = append(mem, "client "+fmtMB(row.PeakMB))
	}
	if row.ServerPeakMB != nil {
		mem = append(mem, "server "+fmtMB(row.ServerPeakMB))
	}
	if len(mem) > 0 {
		s += " (" + strings.Join(mem, ", ") + ")"
	}
	if row.Ratio != nil {
		s += fmt.Sprintf(", %.2fx the first", *row.Ratio)
	}
	if len(row.Errors) > 0 {
		s += fmt.Sprintf(" [%d of %d runs failed]", len(row.Errors), row.Runs)
	}
	return s
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
