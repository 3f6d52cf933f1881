// Package keylist splits the text of a key setting (an environment variable or a key file) into
// its entries: one format for every key ring slipway reads (payload codec, attestations).
package keylist

import "strings"

// Entry is one key as written, with the 1-based line it is on.
type Entry struct {
	Line int
	Text string
}

// Split returns the entries of text: separated by commas or newlines, trimmed; blank lines and
// lines starting with # are skipped.
func Split(text string) []Entry {
	var out []Entry
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, e := range strings.Split(line, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, Entry{Line: i + 1, Text: e})
			}
		}
	}
	return out
}
