package mcp

import (
	"reflect"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// inPlace calls f with each subschema that applies to the same value as s:
// references, combinators, conditionals and dependent schemas.
func inPlace(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	one := func(sub *jsonschema.Schema) {
		if sub != nil {
			f(sub)
		}
	}
	one(s.Ref)
	one(s.RecursiveRef)
	if s.DynamicRef != nil {
		one(s.DynamicRef.Ref)
	}
	one(s.Not)
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range l {
			one(sub)
		}
	}
	one(s.If)
	one(s.Then)
	one(s.Else)
	for _, sub := range s.DependentSchemas {
		one(sub)
	}
	for _, d := range s.Dependencies {
		if sub, ok := d.(*jsonschema.Schema); ok {
			one(sub)
		}
	}
	one(s.ContentSchema)
}

// inside calls f with each subschema that applies to a value inside the
// one s applies to (a property, an item, a property name).
func inside(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	one := func(sub any) {
		if sub, ok := sub.(*jsonschema.Schema); ok && sub != nil {
			f(sub)
		}
	}
	for _, sub := range s.Properties {
		f(sub)
	}
	for _, sub := range s.PatternProperties {
		f(sub)
	}
	one(s.AdditionalProperties)
	one(s.PropertyNames)
	one(s.UnevaluatedProperties)
	if items, ok := s.Items.([]*jsonschema.Schema); ok {
		for _, sub := range items {
			f(sub)
		}
	}
	one(s.Items)
	one(s.AdditionalItems)
	for _, sub := range s.PrefixItems {
		f(sub)
	}
	one(s.Items2020)
	one(s.Contains)
	one(s.UnevaluatedItems)
}

// expandedSize is the number of nodes of the schema tree under root with
// every reference replaced by the schema it points to, counting a
// reference back to a schema already being expanded (recursion) once. It
// stops counting past limit, so it takes at most about limit steps
// whatever the schema.
func expandedSize(root *jsonschema.Schema, limit int) int {
	memo := map[*jsonschema.Schema]int{}
	open := map[*jsonschema.Schema]bool{}
	steps := 0
	var size func(*jsonschema.Schema) int
	size = func(s *jsonschema.Schema) int {
		if n, ok := memo[s]; ok {
			return n
		}
		if open[s] || steps > limit {
			return 1
		}
		steps++
		open[s] = true
		n := 1
		add := func(sub *jsonschema.Schema) { n = min(n+size(sub), limit+1) }
		inPlace(s, add)
		inside(s, add)
		delete(open, s)
		memo[s] = n
		return n
	}
	if n := size(root); steps <= limit {
		return n
	}
	return limit + 1
}

// validationSteps counts the schema applications validating inst against
// root makes, following the instance as the validator does (a property's
// schema applies to that property's value, an items schema to every
// element), over-counting where the choice depends on values (every
// branch of anyOf, both then and else). Past limit it stops and returns
// limit+1; its own work is bounded by limit too.
func validationSteps(root *jsonschema.Schema, inst any, limit int) int {
	type at struct {
		s    *jsonschema.Schema
		inst uintptr // the object or array's identity; 0 for any value without members
	}
	memo := map[at]int{}
	open := map[at]bool{}
	work := 0
	var count func(s *jsonschema.Schema, inst any) int
	count = func(s *jsonschema.Schema, inst any) int {
		key := at{s, identity(inst)}
		if n, ok := memo[key]; ok {
			return n
		}
		if open[key] || work > limit {
			return 1 // the validator stops a reference cycle at one value
		}
		work++
		open[key] = true
		n := 1
		add := func(sub *jsonschema.Schema, v any) {
			if sub != nil && n <= limit {
				n = min(n+count(sub, v), limit+1)
			}
		}
		inPlace(s, func(sub *jsonschema.Schema) { add(sub, inst) })
		switch v := inst.(type) {
		case map[string]any:
			additional, _ := s.AdditionalProperties.(*jsonschema.Schema)
			for name, val := range v {
				work += 1 + len(s.PatternProperties)
				add(s.Properties[name], val)
				for re, sub := range s.PatternProperties {
					if re.MatchString(name) {
						add(sub, val)
					}
				}
				add(additional, val)
				add(s.UnevaluatedProperties, val)
				add(s.PropertyNames, name)
			}
		case []any:
			items, _ := s.Items.(*jsonschema.Schema)
			itemList, _ := s.Items.([]*jsonschema.Schema)
			additional, _ := s.AdditionalItems.(*jsonschema.Schema)
			for i, val := range v {
				work++
				add(items, val)
				if i < len(itemList) {
					add(itemList[i], val)
				}
				add(additional, val)
				if i < len(s.PrefixItems) {
					add(s.PrefixItems[i], val)
				}
				add(s.Items2020, val)
				add(s.Contains, val)
				add(s.UnevaluatedItems, val)
			}
		}
		delete(open, key)
		memo[key] = n
		return n
	}
	if n := count(root, inst); work <= limit {
		return n
	}
	return limit + 1
}

// identity tells apart the objects and arrays of one decoded instance.
func identity(v any) uintptr {
	switch v.(type) {
	case map[string]any, []any:
		if rv := reflect.ValueOf(v); rv.Len() > 0 {
			return rv.Pointer()
		}
	}
	return 0
}
