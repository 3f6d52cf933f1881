// Package stackenv is the operator's allow-list of worker environment variables that each
// stack's terraform and exec hooks may see (say a cloud credential). Nothing else of the
// worker's environment reaches them: slipway's own keys, tokens and connection strings never do.
package stackenv

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Var is the setting the allow-list is read from: "web=AWS_ACCESS_KEY_ID,AWS_REGION;*=HTTPS_PROXY".
const Var = "SLIPWAY_STACK_ENV"

// AllStacks is the stack name whose variables every stack gets.
const AllStacks = "*"

// Error names the entry of the allow-list that is wrong and why.
type Error struct {
	Entry, Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %q %s", Var, e.Entry, e.Reason)
}

// AllowList maps a stack name (or AllStacks) to the variable names it may see. The zero value
// allows nothing.
type AllowList struct {
	byStack map[string][]string
}

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	stackRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
)

// reservedPrefixes are slipway's and its clients' settings, and libpq's variables, which would
// hand terraform the operator's database credentials.
var reservedPrefixes = []string{"SLIPWAY_", "TEMPORAL_", "PG", "TF_LOG", "TF_CLI_ARGS"}

// reserved are variables slipway sets itself or that would point terraform at another state.
var reserved = []string{"PATH", "HOME", "TMPDIR", "PG_CONN_STR", "TF_DATA_DIR", "TF_WORKSPACE", "TF_INPUT",
	"TF_IN_AUTOMATION", "TF_APPEND_USER_AGENT", "TF_REATTACH_PROVIDERS", "TF_DISABLE_PLUGIN_TLS",
	"TF_SKIP_PROVIDER_VERIFY", "CHECKPOINT_DISABLE", "LD_PRELOAD", "LD_LIBRARY_PATH"}

// Reserved reports why a variable may never be allowed, or "".
func Reserved(name string) string {
	if slices.Contains(reserved, name) {
		return "is set by slipway itself"
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return "is one of slipway's own settings or credentials (" + p + "*), which terraform and hooks never get"
		}
	}
	return ""
}

// Parse reads "STACK=VAR,VAR;STACK=VAR": stacks by name or *, variables by exact name.
// An empty string allows nothing.
func Parse(s string) (AllowList, error) {
	a := AllowList{byStack: map[string][]string{}}
	for entry := range strings.SplitSeq(s, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		stack, vars, ok := strings.Cut(entry, "=")
		stack = strings.TrimSpace(stack)
		if !ok {
			return AllowList{}, &Error{Entry: entry, Reason: "must be STACK=VAR[,VAR...] (STACK a stack name or *)"}
		}
		if stack != AllStacks && !stackRE.MatchString(stack) {
			return AllowList{}, &Error{Entry: stack, Reason: "is not a stack name or *"}
		}
		if _, dup := a.byStack[stack]; dup {
			return AllowList{}, &Error{Entry: stack, Reason: "appears twice; list all of its variables in one entry"}
		}
		var names []string
		for v := range strings.SplitSeq(vars, ",") {
			v = strings.TrimSpace(v)
			switch {
			case !nameRE.MatchString(v):
				return AllowList{}, &Error{Entry: v, Reason: "is not an environment variable name (stack " + stack + ")"}
			case Reserved(v) != "":
				return AllowList{}, &Error{Entry: v, Reason: Reserved(v)}
			}
			names = append(names, v)
		}
		a.byStack[stack] = names
	}
	return a, nil
}

// FromEnv parses $SLIPWAY_STACK_ENV.
func FromEnv() (AllowList, error) { return Parse(os.Getenv(Var)) }

// Names are the variables the stack may see, sorted: the * entry's and its own.
func (a AllowList) Names(stack string) []string {
	out := slices.Clone(a.byStack[AllStacks])
	if stack != "" && stack != AllStacks {
		out = append(out, a.byStack[stack]...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Values are the allowed variables the worker has set, for the stack.
func (a AllowList) Values(stack string, lookup func(string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, n := range a.Names(stack) {
		if v, ok := lookup(n); ok {
			out[n] = v
		}
	}
	return out
}

// String is the allow-list in Parse's syntax, stacks sorted.
func (a AllowList) String() string {
	stacks := make([]string, 0, len(a.byStack))
	for s := range a.byStack {
		stacks = append(stacks, s)
	}
	sort.Strings(stacks)
	var parts []string
	for _, s := range stacks {
		parts = append(parts, s+"="+strings.Join(a.byStack[s], ","))
	}
	return strings.Join(parts, ";")
}
