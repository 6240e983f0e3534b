package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// logDates are the days completion offers for {date} in LogTemplate. Any
// other well-formed date reads too.
var logDates = []string{
	"2025-06-01", "2025-06-02", "2025-06-03", "2025-06-04", "2025-06-05", "2025-06-06", "2025-06-07",
	"2025-06-08", "2025-06-09", "2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13", "2025-06-14",
}

// demoUser is the JSON served for UserTemplate.
type demoUser struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Email    string   `json:"email"`
	Role     string   `json:"role"`
	Team     string   `json:"team"`
	Joined   string   `json:"joined"`
	Active   bool     `json:"active"`
	Projects []string `json:"projects"`
}

// users are the profiles behind UserTemplate, sorted by id.
var users = []demoUser{
	{"ada", "Ada Lovelace", "ada@example.com", "admin", "platform", "2019-03-11", true, []string{"orders-api", "billing"}},
	{"alan", "Alan Turing", "alan@example.com", "engineer", "search", "2020-07-01", true, []string{"catalog"}},
	{"barbara", "Barbara Liskov", "barbara@example.com", "architect", "platform", "2018-11-20", true, []string{"orders-api"}},
	{"dennis", "Dennis Ritchie", "dennis@example.com", "engineer", "infra", "2017-05-04", false, []string{}},
	{"edsger", "Edsger Dijkstra", "edsger@example.com", "reviewer", "search", "2021-01-15", true, []string{"catalog", "routing"}},
	{"frances", "Frances Allen", "frances@example.com", "engineer", "compilers", "2019-09-30", true, []string{"build"}},
	{"grace", "Grace Hopper", "grace@example.com", "oncall-lead", "platform", "2016-12-09", true, []string{"orders-api", "payments"}},
	{"john", "John Backus", "john@example.com", "engineer", "compilers", "2022-02-14", true, []string{"build"}},
	{"ken", "Ken Thompson", "ken@example.com", "engineer", "infra", "2016-06-06", true, []string{"tooling"}},
	{"linus", "Linus Torvalds", "linus@example.com", "maintainer", "infra", "2018-04-16", true, []string{"tooling", "kernel"}},
	{"margaret", "Margaret Hamilton", "margaret@example.com", "lead", "reliability", "2017-10-02", true, []string{"payments", "alerts"}},
	{"radia", "Radia Perlman", "radia@example.com", "engineer", "network", "2020-03-23", true, []string{"routing"}},
}

// UserIDs returns the ids that UserTemplate serves, sorted.
func UserIDs() []string {
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	return ids
}

func (d *demoServer) addTemplates() {
	d.srv.AddResourceTemplates(
		server.ServerResourceTemplate{
			Template: mcp.NewResourceTemplate(LogTemplate, "daily-log",
				mcp.WithTemplateTitle("Daily log"),
				mcp.WithTemplateDescription("A small generated log for one day; date is YYYY-MM-DD (completion offers "+
					logDates[0]+" to "+logDates[len(logDates)-1]+")."),
				mcp.WithTemplateMIMEType("text/plain"),
			),
			Handler: readDailyLog,
		},
		server.ServerResourceTemplate{
			Template: mcp.NewResourceTemplate(UserTemplate, "user-profile",
				mcp.WithTemplateTitle("User profile"),
				mcp.WithTemplateDescription("One team member's profile as JSON; id is a first name in lower case, e.g. ada (completion lists them)."),
				mcp.WithTemplateMIMEType("application/json"),
			),
			Handler: readUser,
		},
	)
}

// templateArg returns the value a template variable matched.
func templateArg(req mcp.ReadResourceRequest, name string) string {
	switch v := req.Params.Arguments[name].(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	}
	return ""
}

func readDailyLog(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	date := templateArg(req, "date")
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return nil, fmt.Errorf("%s: %q is not a date: use YYYY-MM-DD, e.g. demo://logs/%s", LogTemplate, date, logDates[len(logDates)-1])
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: string(dailyLog(date))}}, nil
}

func readUser(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id := templateArg(req, "id")
	i, found := slices.BinarySearchFunc(users, id, func(u demoUser, id string) int { return strings.Compare(u.ID, id) })
	if !found {
		return nil, fmt.Errorf("%s: no user %q: use one of %s", UserTemplate, id, strings.Join(UserIDs(), ", "))
	}
	b, err := json.MarshalIndent(users[i], "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: encoding user %q: %w", UserTemplate, id, err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
}
