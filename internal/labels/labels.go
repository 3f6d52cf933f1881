// Package labels checks instance labels (tier: gold) as Kubernetes checks label keys and values,
// and matches a window's labels against an instance's. Pure.
package labels

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var (
	nameRE   = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	prefixRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// CheckKey says what is wrong with a label key: an optional DNS-subdomain prefix and "/", then a
// name of at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
func CheckKey(k string) error {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		if prefix == "" || len(prefix) > 253 || !prefixRE.MatchString(prefix) {
			return fmt.Errorf("key %q: the prefix before / must be a DNS subdomain such as example.com", k)
		}
		name = rest
	}
	if len(name) > 63 || !nameRE.MatchString(name) {
		return fmt.Errorf("key %q must be at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending alphanumeric (an optional prefix/ before it)", k)
	}
	return nil
}

// CheckValue says what is wrong with a label value: empty, or as a key's name.
func CheckValue(v string) error {
	if v != "" && (len(v) > 63 || !nameRE.MatchString(v)) {
		return fmt.Errorf("%q must be at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending alphanumeric", v)
	}
	return nil
}

// Match reports whether have carries every label of want, with its value.
func Match(want, have map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// String is labels as one line, keys sorted: "region=eu, tier=gold".
func String(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ", ")
}
