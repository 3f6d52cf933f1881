// Package planprint reduces a terraform plan to its shape, its fingerprint: which resources it
// creates, updates, replaces or deletes and which attributes it changes, without instance keys
// or values, so the plans of many instances of one stack group into a few shapes (pure).
package planprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Of is the fingerprint of a plan; stateful is the stack's stateful: list (types or addresses).
func Of(s contract.PlanSummary, stateful []string) contract.PlanFingerprint {
	seen := map[string]bool{}
	var entries []contract.PlanEntry
	for _, rc := range s.Resources {
		e := contract.PlanEntry{Resource: Unkeyed(rc.Address), Action: action(rc.Actions), Attributes: attributeNames(rc.Attributes)}
		e.Stateful = (e.Action == "replace" || e.Action == "delete") && rc.IsStateful(stateful)
		if k := key(e); !seen[k] {
			seen[k] = true
			entries = append(entries, e)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	fp := contract.PlanFingerprint{Entries: entries}
	h := sha256.New()
	for _, e := range entries {
		h.Write([]byte(key(e) + "\n")) // not fmt.Fprintf: workflows call this, and workflowcheck takes a writer for I/O
		if e.Stateful && !slices.Contains(fp.Stateful, e.Resource) {
			fp.Stateful = append(fp.Stateful, e.Resource)
		}
	}
	if len(entries) == 0 && !s.NoChanges {
		h.Write([]byte("outputs\n")) // a plan that changes outputs only is a shape of its own
	}
	fp.Hash = hex.EncodeToString(h.Sum(nil))[:12]
	fp.Summary = summary(entries, s.NoChanges)
	return fp
}

// key is an entry's canonical line: what the hash covers and the order entries sort in.
func key(e contract.PlanEntry) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%t", e.Resource, e.Action, strings.Join(e.Attributes, ","), e.Stateful)
}

// Unkeyed is a resource address without its instance keys: module.db["a"].aws_db_instance.main[0]
// is module.db.aws_db_instance.main, the same resource in every instance of a count or for_each.
func Unkeyed(addr string) string {
	var b strings.Builder
	depth, quoted := 0, false
	for i := 0; i < len(addr); i++ {
		c := addr[i]
		switch {
		case quoted && c == '\\' && i+1 < len(addr):
			i++
		case quoted && c == '"':
			quoted = false
		case quoted:
		case c == '"' && depth > 0:
			quoted = true
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// action names a change's actions as one word; a replace is delete and create in either order.
func action(acts []string) string {
	switch {
	case slices.Contains(acts, "delete") && slices.Contains(acts, "create"):
		return "replace"
	case len(acts) == 1:
		return acts[0]
	}
	return strings.Join(acts, "+")
}

// attributeNames are the sorted top-level names of the changed attributes: tags.env and
// tags.team are tags, so a map or list that changes differently per instance is one name.
// notShownOf is internal/terraform's AttributesNotShownOf (not imported: terraform stays out of
// workflow code); TestFingerprintKeepsTheNamesPastTheDetailCut holds the two together.
const notShownOf = "not shown, of: "

func attributeNames(acs []contract.AttributeChange) []string {
	var out []string
	for _, ac := range acs {
		names := []string{ac.Path}
		if strings.HasPrefix(ac.Path, "(") { // the line counting those left out, naming them
			_, rest, ok := strings.Cut(strings.TrimSuffix(ac.Path, ")"), notShownOf)
			if !ok {
				continue // recorded before the names were kept
			}
			names = strings.Split(rest, ", ")
		}
		for _, n := range names {
			if name, _, _ := strings.Cut(n, "."); !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// summary is the fingerprint in one line for people.
func summary(entries []contract.PlanEntry, none bool) string {
	switch {
	case len(entries) == 0 && none:
		return "no changes"
	case len(entries) == 0:
		return "outputs only"
	}
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		p := e.Action + " " + e.Resource
		if e.Action == "update" {
			p += fmt.Sprintf(" (%d attribute%s)", len(e.Attributes), plural(len(e.Attributes)))
		}
		if e.Stateful {
			p += " (stateful!)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
