package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// State is what a workspace's state holds for an apply's or a destroy's result.
type State struct {
	Resources []Resource
	// Outputs are the root outputs, sensitive ones masked.
	Outputs map[string]any
	Serial  int64
}

// State reads the workspace's resources and outputs in one `terraform show -json` and its serial
// in one `terraform state pull`; zero when there is no state yet.
func (r *Runner) State(ctx context.Context, ws Workspace) (State, error) {
	st, err := r.show(ctx, ws)
	if err != nil {
		return State{}, err
	}
	serial, err := r.Serial(ctx, ws)
	if err != nil {
		return State{}, err
	}
	return State{Resources: resourcesOf(st), Outputs: outputsOf(st), Serial: serial}, nil
}

// show is the workspace's state as `terraform show -json` reads it; nil when there is none yet.
func (r *Runner) show(ctx context.Context, ws Workspace) (*tfjson.State, error) {
	c, err := r.open(ctx, ws, cmdShow)
	if err != nil {
		if r.noStateYet(ws, err) {
			return nil, nil
		}
		return nil, err
	}
	defer c.close()
	st, err := c.tf.Show(ctx)
	if err != nil {
		return nil, c.fail(err)
	}
	return st, nil
}

// Serial is the state's serial number (`terraform state pull`), 0 when there is no state.
func (r *Runner) Serial(ctx context.Context, ws Workspace) (int64, error) {
	c, err := r.open(ctx, ws, cmdStatePull)
	if err != nil {
		if r.noStateYet(ws, err) {
			return 0, nil
		}
		return 0, err
	}
	defer c.close()
	raw, err := c.tf.StatePull(ctx)
	if err != nil {
		return 0, c.fail(err)
	}
	if strings.TrimSpace(raw) == "" {
		return 0, nil
	}
	var st struct {
		Serial *int64 `json:"serial"`
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return 0, &CommandError{Command: cmdStatePull, Workspace: ws, Err: fmt.Errorf("state is not JSON: %w", err)}
	}
	if st.Serial == nil {
		return 0, &CommandError{Command: cmdStatePull, Workspace: ws, Err: errors.New("state has no serial")}
	}
	return *st.Serial, nil
}
