package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/store"
)

// openAuditLog opens the durable audit log the workers write: the shared store when pgConn is
// set, else the file in a single worker's state dir; nil (histories only) when neither exists
// and create is false. close releases it.
func openAuditLog(ctx context.Context, pgConn, stateDir string, create bool) (store.AuditLog, func(), error) {
	if pgConn == "" {
		path := filepath.Join(stateDir, store.AuditFileName)
		if _, err := os.Stat(path); err != nil && !create {
			return nil, func() {}, nil
		}
		return &store.AuditFile{Path: path}, func() {}, nil
	}
	keys, err := codec.Load(client.DevKeyFile())
	if err != nil {
		return nil, nil, fmt.Errorf("the shared store is sealed with the payload key: %w", err)
	}
	s, err := store.OpenPG(ctx, pgConn, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("--store-pg-conn: %w", err)
	}
	return s, s.Close, nil
}

// appendServerAudit records a decision slipway server made itself (its key is its own: nothing
// retries it).
func appendServerAudit(ctx context.Context, log store.AuditLog, e contract.AuditEntry) error {
	return log.AppendAudit(ctx, "server/"+rand.Text(), e)
}
