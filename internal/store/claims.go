package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Request claims: a webhook command's request ID is claimed once, by the delivery that first
// submits it, in a store that outlives the instance's runs. Temporal de-duplicates an update's ID
// only within one run, so without a claim a signed delivery replayed under a new delivery ID after
// the instance continued as new would act again.

// RequestClaims records who first submitted each request: PG (the shared store) or ClaimDir.
type RequestClaims interface {
	// ClaimRequest claims request for claimer and returns who holds it: claimer itself when it is
	// the first, or claims it again (a retry); another claimer's name when that one came first.
	ClaimRequest(ctx context.Context, request, claimer string) (holder string, err error)
}

var (
	_ RequestClaims = (*PG)(nil)
	_ RequestClaims = ClaimDir("")
)

const claimsSchema = `CREATE TABLE IF NOT EXISTS slipway_request_claims (
		request text PRIMARY KEY, claimer text NOT NULL, claimed timestamptz NOT NULL DEFAULT now())`

// ClaimRequest implements RequestClaims.
func (s *PG) ClaimRequest(ctx context.Context, request, claimer string) (string, error) {
	if request == "" || claimer == "" {
		return "", &InvalidInputError{Field: "request", Reason: "a claim needs its request and claimer"}
	}
	// Two statements: the select's snapshot then sees a claim that a concurrent insert committed.
	if _, err := s.pool.Exec(ctx, `INSERT INTO slipway_request_claims (request, claimer) VALUES ($1, $2)
		ON CONFLICT (request) DO NOTHING`, request, claimer); err != nil {
		return "", fmt.Errorf("store: claim request: %w", err)
	}
	var holder string
	if err := s.pool.QueryRow(ctx, `SELECT claimer FROM slipway_request_claims WHERE request = $1`, request).Scan(&holder); err != nil {
		return "", fmt.Errorf("store: claim request: %w", err)
	}
	return holder, nil
}

// ClaimDir keeps claims as files in a directory (one host, the embedded default): a claim is a
// file created exclusively, named by the request's hash and holding its claimer.
type ClaimDir string

// ClaimsDirName is the claims' directory in a worker's state dir.
const ClaimsDirName = "request-claims"

// ClaimRequest implements RequestClaims.
func (d ClaimDir) ClaimRequest(_ context.Context, request, claimer string) (string, error) {
	if request == "" || claimer == "" {
		return "", &InvalidInputError{Field: "request", Reason: "a claim needs its request and claimer"}
	}
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(request))
	path := filepath.Join(string(d), hex.EncodeToString(sum[:]))
	// Written whole under a temporary name, then linked: a kill never leaves an empty claim.
	tmp, err := os.CreateTemp(string(d), ".claim-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(claimer); err != nil {
		_ = tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	b, err := os.ReadFile(path)
	return string(b), err
}
