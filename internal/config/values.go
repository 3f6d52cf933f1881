package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Parameter values are normalised so they survive a JSON round trip (Temporal payloads)
// and compare with ==: string -> string, bool -> bool, int -> int64, number -> float64.
// An `int` also accepts an integral float (2.0, or 2 after a JSON round trip) but never 2.5;
// a `number` accepts ints and floats; nothing converts between strings and other types.
func normalize(t ParamType, v any) (any, string) {
	switch t {
	case TypeString:
		if s, ok := v.(string); ok {
			return s, ""
		}
		if isScalar(v) {
			return nil, fmt.Sprintf("must be a string, got %s (quote it to make it a string)", describe(v))
		}
	case TypeBool:
		if b, ok := v.(bool); ok {
			return b, ""
		}
	case TypeInt:
		if i, ok := toInt64(v); ok {
			return i, ""
		}
		if f, ok := toFloat64(v); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
				return nil, fmt.Sprintf("must be an int, got %s (it has a fraction)", describe(v))
			}
			if f < math.MinInt64 || f >= math.MaxInt64 {
				return nil, fmt.Sprintf("must be an int, got %s (out of range)", describe(v))
			}
			return int64(f), ""
		}
		if u, ok := v.(uint64); ok && u > math.MaxInt64 {
			return nil, fmt.Sprintf("must be an int, got %s (out of range)", describe(v))
		}
	case TypeNumber:
		if i, ok := toInt64(v); ok {
			return float64(i), ""
		}
		if f, ok := toFloat64(v); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Sprintf("must be a finite number, got %s", describe(v))
			}
			return f, ""
		}
		if u, ok := v.(uint64); ok {
			return float64(u), ""
		}
	default:
		return nil, fmt.Sprintf("has unknown type %q", t)
	}
	return nil, fmt.Sprintf("must be %s, got %s", t.article(), describe(v))
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return int64(n), uint64(n) <= math.MaxInt64
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func toFloat64(v any) (float64, bool) {
	switch n := v.(type) {
	case float32:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, []any, map[string]any, map[any]any:
		return false
	}
	return true
}

// describe names a value's YAML type and shows it, e.g. `string "two"`, `int 3`, `null`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("bool %t", x)
	case float32, float64:
		return fmt.Sprintf("float %v", x)
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	if _, ok := toInt64(v); ok {
		return fmt.Sprintf("int %v", v)
	}
	if u, ok := v.(uint64); ok {
		return fmt.Sprintf("int %d", u)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// show formats a value for "was ..., now ..." messages.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func sameValue(a, b any) bool { return reflect.DeepEqual(a, b) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinQuoted(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
