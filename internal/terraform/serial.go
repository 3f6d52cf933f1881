package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Serial is the state's serial number (`terraform state pull`), 0 when there is no state.
func (r *Runner) Serial(ctx context.Context, ws Workspace) (int64, error) {
	c, err := r.open(ctx, ws, cmdStatePull)
	if err != nil {
		if r.noStateYet(ws, err) {
			return 0, nil
		}
		return 0, err
	}
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
