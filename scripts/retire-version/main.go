// Command retire-version prints what scripts/retire-version.sh needs from workflows.Changes to
// retire the old branches of one GetVersion change (docs/versions.md):
//
//	retire-version query CHANGE-ID [VERSION]  the visibility query for running workflows still on them
//	retire-version steps CHANGE-ID [VERSION]  the steps that remain once none runs
//
// VERSION is the newest branch to retire (default: the DefaultVersion branch, the code from
// before the change). It exits 2 on an unknown change or version.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/workflows"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "retire-version:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, args []string) error {
	if len(args) < 2 || len(args) > 3 || (args[0] != "query" && args[0] != "steps") {
		return fmt.Errorf("usage: retire-version query|steps CHANGE-ID [VERSION]")
	}
	c, ok := workflows.ChangeByID(args[1])
	if !ok {
		ids := make([]string, len(workflows.Changes))
		for i, c := range workflows.Changes {
			ids[i] = c.ID
		}
		return fmt.Errorf("CHANGE-ID %q is not in workflows.Changes (one of: %s)", args[1], strings.Join(ids, ", "))
	}
	v := workflow.DefaultVersion
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		if err != nil || (n != int(workflow.DefaultVersion) && n < 1) || workflow.Version(n) >= c.Max {
			want := fmt.Sprintf("%d (DefaultVersion)", workflow.DefaultVersion)
			if c.Max > 1 {
				want += fmt.Sprintf(" or 1..%d", c.Max-1)
			}
			return fmt.Errorf("VERSION %q: want %s, a branch below %s's newest version %d", args[2], want, c.ID, c.Max)
		}
		v = workflow.Version(n)
	}
	if args[0] == "query" {
		_, err := fmt.Fprintln(w, c.RunningOnQuery(v))
		return err
	}
	_, err := io.WriteString(w, steps(c, v))
	return err
}

// steps is the rest of the procedure for retiring c's branches up to v.
func steps(c workflows.Change, v workflow.Version) string {
	var b strings.Builder
	min := workflow.Version(1)
	if v >= 1 {
		min = v + 1
	}
	var dirs []string
	for k, ds := range c.Pinned {
		if k <= v {
			dirs = append(dirs, ds...)
		}
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	fmt.Fprintf(&b, "Retiring %s up to %s (added %s in %s, newest version %d).\n", c.ID, versionName(v), c.Added, c.Commit, c.Max)
	fmt.Fprintf(&b, "1. Empty the list above: a pipeline ends with its operation (or retry, resolve, abandon it);\n"+
		"   move each parked InstanceWorkflow instance/T/N to a new run with slipway new-run T/N (a busy one\n"+
		"   refuses: send it again when its operation ends). Never reset a run to move it.\n")
	fmt.Fprintf(&b, "2. In workflows/, give the GetVersion(ctx, %q, ...) call minSupported %d and delete the code\n"+
		"   of the branches below it; keep the call.\n", c.ID, min)
	if len(dirs) == 0 {
		fmt.Fprintf(&b, "3. No committed history pins these branches: delete none.\n")
	} else {
		fmt.Fprintf(&b, "3. Delete the histories that replay them: git rm -r%s\n", prefixed(" testsuite/histories/", dirs))
		for _, d := range dirs {
			if also := alsoPinned(c.ID, d); len(also) > 0 {
				fmt.Fprintf(&b, "   %s also pins %s: their old branches lose that replay.\n", d, strings.Join(also, ", "))
			}
		}
	}
	fmt.Fprintf(&b, "4. In workflows.Changes, drop %s's Pinned entries up to %s and the deleted\n"+
		"   histories from every other entry.\n", c.ID, versionName(v))
	fmt.Fprintf(&b, "5. go test ./workflows/... ./testsuite -run 'TestReplay|TestVersion'\n")
	return b.String()
}

// alsoPinned names the other changes' branches that history dir pins.
func alsoPinned(id, dir string) []string {
	var out []string
	for _, c := range workflows.Changes {
		for v, ds := range c.Pinned {
			if c.ID != id && slices.Contains(ds, dir) {
				out = append(out, c.ID+" "+versionName(v))
			}
		}
	}
	slices.Sort(out)
	return out
}

func versionName(v workflow.Version) string {
	if v == workflow.DefaultVersion {
		return "DefaultVersion"
	}
	return fmt.Sprintf("version %d", v)
}

func prefixed(prefix string, names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(prefix + n)
	}
	return b.String()
}
