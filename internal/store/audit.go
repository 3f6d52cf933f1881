package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// The durable audit log: every decision the workers' policy and slipway server make, kept in the
// store so that it outlives Temporal's retention (`slipway audit --since` a year ago). Entries
// hold no secret (they are what `slipway audit` prints), so they are kept in clear.

// AuditLog appends and reads the durable audit log: PG (the shared store) or AuditFile (one host).
type AuditLog interface {
	// AppendAudit records e under key once: the same key again changes nothing (a retried write).
	AppendAudit(ctx context.Context, key string, e contract.AuditEntry) error
	// AuditSince calls fn with the entries of tenant ("" every tenant) at or after since, oldest first.
	AuditSince(ctx context.Context, tenant string, since time.Time, fn func(contract.AuditEntry) error) error
	// AuditBegan is the time of the log's first entry; zero when it is empty.
	AuditBegan(ctx context.Context) (time.Time, error)
}

var (
	_ AuditLog = (*PG)(nil)
	_ AuditLog = (*AuditFile)(nil)
)

const auditSchema = `CREATE TABLE IF NOT EXISTS slipway_audit (
		key text PRIMARY KEY, at timestamptz NOT NULL, tenant text NOT NULL, entry jsonb NOT NULL)`

const auditIndex = `CREATE INDEX IF NOT EXISTS slipway_audit_at ON slipway_audit (at)`

// AppendAudit implements AuditLog.
func (s *PG) AppendAudit(ctx context.Context, key string, e contract.AuditEntry) error {
	if key == "" {
		return &InvalidInputError{Field: "key", Reason: "an audit entry needs its key"}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO slipway_audit (key, at, tenant, entry) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key) DO NOTHING`, key, e.At, e.Tenant, b)
	if err != nil {
		return fmt.Errorf("store: append audit: %w", err)
	}
	return nil
}

// AuditSince implements AuditLog.
func (s *PG) AuditSince(ctx context.Context, tenant string, since time.Time, fn func(contract.AuditEntry) error) error {
	rows, err := s.pool.Query(ctx, `SELECT entry FROM slipway_audit WHERE at >= $1 AND ($2 = '' OR tenant = $2)
		ORDER BY at, key`, since, tenant)
	if err != nil {
		return fmt.Errorf("store: read audit: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return fmt.Errorf("store: read audit: %w", err)
		}
		var e contract.AuditEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("store: read audit: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// AuditBegan implements AuditLog.
func (s *PG) AuditBegan(ctx context.Context) (time.Time, error) {
	var t *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT min(at) FROM slipway_audit`).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("store: read audit: %w", err)
	}
	if t == nil {
		return time.Time{}, nil
	}
	return *t, nil
}

// AuditFile is the audit log of the embedded default (one host, no shared store): JSON lines
// appended to one file, each written whole and synced before the decision is returned.
type AuditFile struct {
	Path string
	mu   sync.Mutex
}

// AuditFileName is the audit log's file in a worker's state dir.
const AuditFileName = "audit.jsonl"

type auditLine struct {
	Key   string              `json:"key"`
	Entry contract.AuditEntry `json:"entry"`
}

// AppendAudit implements AuditLog; a key written before is kept once when read.
func (f *AuditFile) AppendAudit(_ context.Context, key string, e contract.AuditEntry) error {
	if key == "" {
		return &InvalidInputError{Field: "key", Reason: "an audit entry needs its key"}
	}
	b, err := json.Marshal(auditLine{Key: key, Entry: e})
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return err
	}
	// O_APPEND with one write per line: lines of several worker processes never interleave.
	fh, err := os.OpenFile(f.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		_ = fh.Close()
		return err
	}
	if err := fh.Sync(); err != nil {
		_ = fh.Close()
		return err
	}
	return fh.Close()
}

// entries reads the file once, a key's first line only; a torn last line (a crash mid-write) is skipped.
func (f *AuditFile) entries() ([]contract.AuditEntry, error) {
	fh, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	seen := map[string]bool{}
	var out []contract.AuditEntry
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var l auditLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Key == "" || seen[l.Key] {
			continue
		}
		seen[l.Key] = true
		out = append(out, l.Entry)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, sc.Err()
}

// AuditSince implements AuditLog.
func (f *AuditFile) AuditSince(_ context.Context, tenant string, since time.Time, fn func(contract.AuditEntry) error) error {
	es, err := f.entries()
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.At.Before(since) || (tenant != "" && e.Tenant != tenant) {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// AuditBegan implements AuditLog.
func (f *AuditFile) AuditBegan(context.Context) (time.Time, error) {
	es, err := f.entries()
	if err != nil || len(es) == 0 {
		return time.Time{}, err
	}
	return es[0].At, nil
}
