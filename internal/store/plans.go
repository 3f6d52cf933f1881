package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/terraform"
)

var _ terraform.PlanStore = (*PG)(nil)

// keepPlans is how many plans per instance the store keeps; older ones are deleted.
const keepPlans = 5

// SavePlan seals the plan and its configuration; the hash stays in clear so a wrong plan is
// refused before anything is decrypted.
func (s *PG) SavePlan(ctx context.Context, ws terraform.Workspace, name string, p terraform.SavedPlan) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	sealed, err := s.seal(body, aadOf("plan", ws.Tenant, ws.Name, name))
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO slipway_plans (tenant, name, plan, sha256, key_id, data_key, sealed)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (tenant, name, plan) DO UPDATE SET sha256 = $4, key_id = $5, data_key = $6, sealed = $7, created = now()`,
			ws.Tenant, ws.Name, name, p.SHA256, sealed.KeyID, sealed.DataKey, sealed.Data)
		if err != nil {
			return err
		}
		// One operation runs at a time per instance, so only its newest plans can still be applied.
		_, err = tx.Exec(ctx, `DELETE FROM slipway_plans WHERE tenant = $1 AND name = $2 AND plan NOT IN
			(SELECT plan FROM slipway_plans WHERE tenant = $1 AND name = $2 ORDER BY created DESC LIMIT $3)`,
			ws.Tenant, ws.Name, keepPlans)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save plan %q of %s: %w", name, ws, err)
	}
	return nil
}

// LoadPlan opens the plan stored under name.
func (s *PG) LoadPlan(ctx context.Context, ws terraform.Workspace, name string) (terraform.SavedPlan, error) {
	var sha string
	var sealed codec.Sealed
	err := s.pool.QueryRow(ctx, `SELECT sha256, key_id, data_key, sealed FROM slipway_plans
		WHERE tenant = $1 AND name = $2 AND plan = $3`, ws.Tenant, ws.Name, name).
		Scan(&sha, &sealed.KeyID, &sealed.DataKey, &sealed.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return terraform.SavedPlan{}, &terraform.PlanNotStoredError{Workspace: ws, Name: name}
	}
	if err != nil {
		return terraform.SavedPlan{}, fmt.Errorf("store: load plan %q of %s: %w", name, ws, err)
	}
	what := fmt.Sprintf("plan %q of %s", name, ws)
	body, err := s.open(what, sealed, aadOf("plan", ws.Tenant, ws.Name, name))
	if err != nil {
		return terraform.SavedPlan{}, err
	}
	var p terraform.SavedPlan
	if err := json.Unmarshal(body, &p); err != nil {
		return terraform.SavedPlan{}, fmt.Errorf("store: %s: %w", what, err)
	}
	if p.SHA256 != sha {
		return terraform.SavedPlan{}, fmt.Errorf("store: %s: recorded sha256 %s, sealed %s", what, sha, p.SHA256)
	}
	return p, nil
}

// MarkApplied records the applied hash; marking twice is fine.
func (s *PG) MarkApplied(ctx context.Context, ws terraform.Workspace, sha256, name string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO slipway_applied_plans (tenant, name, sha256, plan) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, ws.Tenant, ws.Name, sha256, name)
	if err != nil {
		return fmt.Errorf("store: mark plan %q of %s applied: %w", name, ws, err)
	}
	return nil
}

// Applied reports whether a plan with this hash was applied to ws.
func (s *PG) Applied(ctx context.Context, ws terraform.Workspace, sha256 string) (bool, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM slipway_applied_plans WHERE tenant = $1 AND name = $2 AND sha256 = $3`,
		ws.Tenant, ws.Name, sha256).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: applied plans of %s: %w", ws, err)
	}
	return n > 0, nil
}
