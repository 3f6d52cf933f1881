package gitlab

import (
	"context"
	"sort"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

// ListOpen lists the open MRs into the base whose branch starts with prefix, oldest first.
// GitLab cannot filter by branch prefix, so every open MR is read (all pages) and filtered here.
func (f *Forge) ListOpen(ctx context.Context, prefix string) ([]forge.MergeRequest, error) {
	found, err := f.listMRs(ctx, "list open merge requests", &gl.ListProjectMergeRequestsOptions{
		State: gl.Ptr("opened"), TargetBranch: gl.Ptr(f.cfg.base), OrderBy: gl.Ptr("created_at"), Sort: gl.Ptr("asc")})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].IID < found[j].IID }) // IIDs grow with creation
	out := []forge.MergeRequest{}
	for _, m := range found {
		if !strings.HasPrefix(m.SourceBranch, prefix) {
			continue
		}
		mr, err := f.toMR(ctx, m)
		if err != nil {
			return nil, err
		}
		out = append(out, mr)
	}
	return out, nil
}
