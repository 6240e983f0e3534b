package mcp

import (
	"fmt"
	"sort"
	"strings"
)

// rfc6570Operators are the expression operators of RFC 6570 Levels 2-4.
const rfc6570Operators = "+#./;?&"

// TemplateVariables lists the variable names of a URI template in order of
// first appearance. Operators and modifiers (Levels 2-4) are stripped, so
// the names are right even for templates howl will refuse to expand.
func TemplateVariables(tmpl string) []string {
	var out []string
	seen := map[string]bool{}
	for _, expr := range templateExprs(tmpl) {
		expr = strings.TrimLeft(expr, rfc6570Operators)
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimSuffix(v, "*")
			if i := strings.IndexByte(v, ':'); i >= 0 {
				v = v[:i]
			}
			v = strings.TrimSpace(v)
			if v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func templateExprs(tmpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, tmpl[i+1:i+j])
		tmpl = tmpl[i+j+1:]
	}
}

// ExpandTemplate expands an RFC 6570 Level 1 template: each {var} becomes
// its value, percent-encoded (only unreserved characters stay as they are).
// Any Level 2+ operator, modifier or list is a teaching error, and so is a
// variable without a value.
func ExpandTemplate(tmpl string, values map[string]string) (string, error) {
	var b strings.Builder
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return "", fmt.Errorf("template %q has a '}' without its '{': write {name} around each variable", tmpl)
			}
			b.WriteString(rest)
			return b.String(), nil
		}
		if strings.IndexByte(rest[:i], '}') >= 0 {
			return "", fmt.Errorf("template %q has a '}' without its '{': write {name} around each variable", tmpl)
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("template %q has an unclosed '{': close each variable with '}'", tmpl)
		}
		b.WriteString(rest[:i])
		expr := rest[i+1 : i+j]
		if expr == "" {
			return "", fmt.Errorf("template %q has an empty expression {}: name the variable, e.g. {id}", tmpl)
		}
		if strings.ContainsRune(rfc6570Operators, rune(expr[0])) {
			return "", fmt.Errorf("template %q uses the RFC 6570 operator %q in {%s}: only Level 1 {var} substitution is supported; read the expanded URI directly instead", tmpl, expr[:1], expr)
		}
		if strings.ContainsAny(expr, ",*:") {
			return "", fmt.Errorf("template %q uses a variable list or modifier in {%s}: only Level 1 {var} substitution is supported; read the expanded URI directly instead", tmpl, expr)
		}
		if !validTemplateVar(expr) {
			return "", fmt.Errorf("template %q has an invalid variable name {%s}: use letters, digits, underscores and dots", tmpl, expr)
		}
		v, ok := values[expr]
		if !ok {
			return "", fmt.Errorf("template variable %q has no value: pass it in arguments, e.g. {%q: \"...\"} (template %s)", expr, expr, tmpl)
		}
		b.WriteString(percentEncode(v))
		rest = rest[i+j+1:]
	}
}

// UnusedArguments lists argument names the template does not mention, sorted.
func UnusedArguments(tmpl string, values map[string]string) []string {
	vars := map[string]bool{}
	for _, v := range TemplateVariables(tmpl) {
		vars[v] = true
	}
	var out []string
	for k := range values {
		if !vars[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func validTemplateVar(s string) bool {
	for _, r := range s {
		if r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			continue
		}
		if r == '%' { // pct-encoded varchar is allowed by the RFC
			continue
		}
		return false
	}
	return true
}

// percentEncode encodes every byte outside RFC 3986's unreserved set.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
