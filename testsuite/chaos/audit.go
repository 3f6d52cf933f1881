package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite/drive"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// Audit is what the real systems say one lifecycle did.
type Audit struct {
	MRs, Merges int // MR branches and merge commits for the instance
	Serial      int // final terraform state serial in PostgreSQL
	Applies     int // terraform runs that really created the slow resource (provisioner lines)
	Destroys    int // terraform runs that really destroyed it
	Records     int // operations on record in the instance's status
	Lost        int // lifecycle operations with no record, or a record that did not succeed
	ExtraOps    int // operations on record that nobody asked for (a request run twice)
}

// DupMRs, DupMerges and DupApplies are the duplicates against a clean lifecycle.
func (a Audit) DupMRs() int    { return max(0, a.MRs-configChanges) }
func (a Audit) DupMerges() int { return max(0, a.Merges-configChanges) }
func (a Audit) DupApplies(b Audit) int {
	return max(0, a.Applies-b.Applies) + max(0, a.Destroys-b.Destroys)
}
func (a Audit) SerialJump(b Audit) int { return max(0, a.Serial-b.Serial) }

// auditor reads the GitOps repo, PostgreSQL and the instance's records.
type auditor struct {
	effects string
	repo    string
	pg      *postgres.Server
	db      string
}

func (au auditor) audit(ctx context.Context, c *client.Client, ref contract.Ref) (Audit, error) {
	var a Audit
	branches, err := exec.CommandContext(ctx, "git", "-C", au.repo, "for-each-ref", "--format=%(refname)",
		"refs/heads/"+contract.BranchPrefix(ref)).Output()
	if err != nil {
		return a, fmt.Errorf("git for-each-ref: %w", err)
	}
	a.MRs = len(strings.Fields(string(branches)))
	if a.Merges, err = devenv.CountMerges(ctx, au.repo, "instances/"+ref.Tenant+"/"+ref.Name); err != nil {
		return a, err
	}
	if a.Serial, err = drive.StateSerial(au.pg, au.db, ref); err != nil {
		return a, err
	}
	if a.Applies, a.Destroys, err = drive.Effects(au.effects, ref); err != nil {
		return a, err
	}
	st, err := drive.Status(ctx, c, ref)
	if err != nil {
		return a, fmt.Errorf("status of %s: %w", ref, err)
	}
	a.Records, a.Lost, a.ExtraOps = records(st)
	return a, nil
}

// records compares the operations on record with the lifecycle that was asked for.
func records(st *contract.Status) (total, lost, extra int) {
	var ops []contract.OperationStatus
	ops = append(ops, st.History...)
	if st.Operation != nil {
		ops = append(ops, *st.Operation)
	}
	for i, want := range lifecycleOps {
		if i >= len(ops) || ops[i].Kind != want.op || ops[i].Result != contract.ResultSucceeded {
			lost++
		}
	}
	return len(ops), lost, max(0, len(ops)-len(lifecycleOps))
}
