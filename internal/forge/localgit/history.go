package localgit

import (
	"context"
	"strconv"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.History = (*Forge)(nil)

// Commits lists the commits in from..to that changed dir, newest first (git log).
func (f *Forge) Commits(ctx context.Context, from, to, dir string) ([]forge.Commit, error) {
	if err := forge.CheckRelPath("dir", dir); err != nil {
		return nil, err
	}
	for _, rev := range []string{from, to} {
		if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n .") {
			return nil, &forge.InvalidError{Field: "rev", Value: rev, Problem: "is not a commit"}
		}
	}
	out, err := f.git.out(ctx, "log", "-n", strconv.Itoa(forge.MaxCommits), "--format=%H%x1f%an <%ae>%x1f%s", from+".."+to, "--", dir)
	if err != nil {
		return nil, err
	}
	var commits []forge.Commit
	for _, line := range strings.Split(out, "\n") {
		if parts := strings.SplitN(line, "\x1f", 3); len(parts) == 3 {
			commits = append(commits, forge.Commit{SHA: parts[0], Author: parts[1], Subject: parts[2]})
		}
	}
	return commits, nil
}
