package production

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/testsuite/drive"
)

// audit is what the real systems say one lifecycle did.
type audit struct {
	prs, merged       int // pull requests in Gitea for the instance, and those merged
	applies, destroys int // real creates and destroys of the rollout (provisioner lines)
	// cutShort counts those lines whose terraform died with its host before it could
	// persist the state (remote state is persisted at the end, or every 20 s), so the
	// retried apply does them again: terraform's limit, not a duplicate by slipway.
	cutShort int
	// born counts time_static's creations (its provisioner's lines), bornCutShort those whose
	// terraform died with its host: terraform's own limit, like cutShort.
	born, bornCutShort int
	serial             int // final terraform state serial in PostgreSQL
	failedOps          int // operations on record that did not succeed (a *Failed state)
	lost, extra        int // lifecycle steps with no successful record; records nobody asked for
}

// audit reads Gitea, the effects log, PostgreSQL and the instance's records for ref.
func (w *world) audit(ctx context.Context, ref contract.Ref, prs []*gitea.PullRequest) (audit, error) {
	var a audit
	prefix := contract.BranchPrefix(ref)
	for _, pr := range prs {
		if pr.Head != nil && strings.HasPrefix(pr.Head.Ref, prefix) {
			a.prs++
			if pr.HasMerged {
				a.merged++
			}
		}
	}
	effects, err := drive.EffectsOf(w.effects, ref)
	if err != nil {
		return a, err
	}
	w.mu.Lock()
	for _, e := range effects {
		if e.Kind == "apply" {
			a.applies++
		} else {
			a.destroys++
		}
		if w.killed[e.PID] {
			a.cutShort++
		}
	}
	bornBy, err := borns(w.effects, ref)
	if err != nil {
		return a, err
	}
	a.born = len(bornBy)
	for _, pid := range bornBy {
		if w.killed[pid] {
			a.bornCutShort++
		}
	}
	w.mu.Unlock()
	if a.serial, err = drive.StateSerial(w.pg, "slipway", ref); err != nil {
		return a, err
	}
	st, err := drive.Status(ctx, w.client, ref)
	if err != nil {
		return a, fmt.Errorf("status of %s: %w", ref, err)
	}
	ops := append([]contract.OperationStatus{}, st.History...)
	if st.Operation != nil {
		ops = append(ops, *st.Operation)
	}
	for i, want := range lifecycleSteps {
		if i >= len(ops) || ops[i].Kind != want.op || ops[i].Result != contract.ResultSucceeded {
			a.lost++
		}
	}
	for _, op := range ops {
		if op.Result != contract.ResultSucceeded {
			a.failedOps++
		}
	}
	a.extra = max(0, len(ops)-len(lifecycleSteps))
	return a, nil
}

// pullRequests lists every pull request of the GitOps repo, all pages.
func (w *world) pullRequests(ctx context.Context) ([]*gitea.PullRequest, error) {
	c, err := w.gitea.Client(ctx)
	if err != nil {
		return nil, err
	}
	var all []*gitea.PullRequest
	for page := 1; ; page++ {
		prs, _, err := c.ListRepoPullRequests(w.gitea.AdminUser, repoName, gitea.ListPullRequestsOptions{
			ListOptions: gitea.ListOptions{Page: page, PageSize: 50}, State: gitea.StateAll})
		if err != nil {
			return nil, fmt.Errorf("list pull requests: %w", err)
		}
		all = append(all, prs...)
		if len(prs) < 50 {
			return all, nil
		}
	}
}

// clusterSecret is the instance's Kubernetes Secret as the kube-apiserver holds it.
func (w *world) clusterSecret(ctx context.Context, ref contract.Ref) (map[string]string, error) {
	ns := names.Derive(ref.Tenant, ref.Name).Namespace // provisioned by this code: Derive's names
	status, body, err := w.argo.Stack.Get(ctx, fmt.Sprintf("/api/v1/namespaces/%s/secrets/%s", ns, argocd.SecretName))
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET secret %s/%s: HTTP %d: %s", ns, ref.Name, status, body)
	}
	var obj struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range obj.Data {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return nil, fmt.Errorf("secret %s/%s key %s: %w", ns, ref.Name, k, err)
		}
		out[k] = string(b)
	}
	return out, nil
}
