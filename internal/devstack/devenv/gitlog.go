package devenv

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// CountMerges counts merge commits on main that touch dir: one per config change.
func CountMerges(ctx context.Context, repo, dir string) (int, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "log", "--merges", "--first-parent",
		"--format=%H", "main", "--", dir).Output()
	if err != nil {
		return 0, fmt.Errorf("git log in %s: %w", repo, err)
	}
	return len(strings.Fields(string(out))), nil
}
