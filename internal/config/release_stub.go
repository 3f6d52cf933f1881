package config

import "strings"

// ParseStackRef stands in for part A's until the merge: "web@1.5.0" is web, release 1.5.0.
func ParseStackRef(s string) (name, release string, err error) {
	name, release, _ = strings.Cut(s, "@")
	return name, release, nil
}
