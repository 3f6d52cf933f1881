package terraform

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	tfjson "github.com/hashicorp/terraform-json"
)

// AttributeChange is one attribute a planned change sets, as `terraform show` of the plan shows
// it: the old and new value as JSON text. A sensitive value is never copied: Sensitive is set and
// the value reads SensitiveValue; a value known only after apply reads UnknownValue.
type AttributeChange struct {
	Path      string
	Before    string
	After     string
	Sensitive bool
}

// Placeholders for values a plan does not show.
const (
	SensitiveValue = "(sensitive value)"
	UnknownValue   = "(known after apply)"
	// absent is an attribute a side does not have (a create's before, a delete's after).
	absent = "null"
)

// AttributesNotShownOf leads, on the last line of a resource's attributes cut for size ("(N more
// attribute(s) not shown, of: a, b)"), the top-level names of those left out: they are part of a
// plan's shape (internal/planprint reads them).
const AttributesNotShownOf = "not shown, of: "

// Bounds on a plan's attribute detail: it travels in workflow history.
const (
	maxAttributes     = 40  // per resource; the rest are counted on one more line
	maxAttributeBytes = 160 // of one value's text
)

// attributeChanges lists the leaf attributes that differ between the change's before and after,
// sorted by path, values masked where terraform marks them sensitive on either side.
func attributeChanges(c *tfjson.Change) []AttributeChange {
	before, after := map[string]any{}, map[string]any{}
	flatten("", c.Before, before)
	flatten("", c.After, after)
	paths := map[string]bool{}
	for p := range before {
		paths[p] = true
	}
	for p := range after {
		paths[p] = true
	}
	unknown := map[string]any{}
	flatten("", c.AfterUnknown, unknown)
	for p, v := range unknown {
		if v == true {
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	secrets := sensitiveLeaves(before, c.BeforeSensitive, after, c.AfterSensitive)
	var out []AttributeChange
	for i, p := range sorted {
		b, hadB := before[p]
		a, hasA := after[p]
		if !hadB && !hasA && i+1 < len(sorted) && strings.HasPrefix(sorted[i+1], p+".") {
			continue // an unknown object whose old parts are listed, each known after apply
		}
		isUnknown := marked(c.AfterUnknown, p)
		if !isUnknown && hadB == hasA && reflect.DeepEqual(b, a) {
			continue
		}
		ac := AttributeChange{Path: p, Before: text(b, hadB), After: text(a, hasA)}
		if isUnknown {
			ac.After = UnknownValue
		}
		if marked(c.BeforeSensitive, p) || marked(c.AfterSensitive, p) || secrets.hold(b) || secrets.hold(a) {
			// Either side's mark hides both: a value sensitive on one side is a secret on the other too.
			ac.Sensitive = true
			if hadB {
				ac.Before = SensitiveValue
			}
			if hasA && !isUnknown {
				ac.After = SensitiveValue
			}
		}
		out = append(out, ac)
	}
	if len(out) <= maxAttributes {
		return out
	}
	// The names of the attributes past the cut stay: a plan's shape is the attributes it changes,
	// and a shape approved for the first 40 must not cover a plan that also changes another.
	var names []string
	for _, ac := range out[maxAttributes:] {
		if name, _, _ := strings.Cut(ac.Path, "."); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return append(out[:maxAttributes:maxAttributes], AttributeChange{
		Path: fmt.Sprintf("(%d more attribute(s) %s%s)", len(out)-maxAttributes, AttributesNotShownOf, strings.Join(names, ", "))})
}

// secretSet holds the values a change marks sensitive somewhere. Terraform does not mark every
// copy (terraform_data's output repeats a sensitive input unmarked in before), so a value that
// holds one of them is masked too.
type secretSet []any

func sensitiveLeaves(before map[string]any, bmask any, after map[string]any, amask any) secretSet {
	var s secretSet
	for p, v := range before {
		if marked(bmask, p) || marked(amask, p) {
			s = append(s, v)
		}
	}
	for p, v := range after {
		if marked(bmask, p) || marked(amask, p) {
			s = append(s, v)
		}
	}
	return s
}

// hold reports whether v is, or (as text) contains, a sensitive value; short strings and
// non-strings must be equal, so "a" or true sensitive somewhere does not mask every "a".
func (s secretSet) hold(v any) bool {
	if v == nil {
		return false
	}
	vt, _ := json.Marshal(v)
	for _, x := range s {
		if reflect.DeepEqual(x, v) {
			return true
		}
		if str, ok := x.(string); ok && len(str) >= 4 && strings.Contains(string(vt), str) {
			return true
		}
	}
	return false
}

// flatten records each leaf of v under its dotted path; an empty object or list is a leaf.
func flatten(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && prefix != "" {
			out[prefix] = t
		}
		for k, x := range t {
			flatten(join(prefix, k), x, out)
		}
	case []any:
		if len(t) == 0 && prefix != "" {
			out[prefix] = t
		}
		for i, x := range t {
			flatten(join(prefix, strconv.Itoa(i)), x, out)
		}
	default:
		if prefix != "" && v != nil {
			out[prefix] = v
		}
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// marked reports whether terraform's sensitivity (or unknown) mask marks path or one of its
// ancestors: a mask is true for a whole value, or an object/list of masks for its parts.
func marked(mask any, path string) bool {
	if mask == true {
		return true
	}
	if path == "" {
		return false
	}
	head, rest := path, ""
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			head, rest = path[:i], path[i+1:]
			break
		}
	}
	switch t := mask.(type) {
	case map[string]any:
		return marked(t[head], rest)
	case []any:
		i, err := strconv.Atoi(head)
		if err != nil || i < 0 || i >= len(t) {
			return false
		}
		return marked(t[i], rest)
	}
	return false
}

// text is a value as JSON, clipped.
func text(v any, present bool) string {
	if !present {
		return absent
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > maxAttributeBytes {
		cut := maxAttributeBytes - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
