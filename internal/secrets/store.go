// Package secrets makes the random secrets bootstrapped on an instance's first deploy (EDP)
// and keeps them for a single host in 0600 files. Several workers share internal/store
// instead, which imports these files on first use. Values reach the deployer inside an
// activity, so they never enter git, templates, logs or workflow history.
package secrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// secretBytes of randomness per secret: 256 bits.
const secretBytes = 32

// NewValue is one new secret: 256 random bits, base64url.
func NewValue() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("secrets: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Store is a directory of one JSON file per instance.
type Store struct {
	dir string
	mu  sync.Mutex // Ensure is read-modify-write; the file rename makes each write atomic
}

// NewStore keeps secrets under dir (created 0700 on first write).
func NewStore(dir string) *Store { return &Store{dir: dir} }

func (s *Store) path(tenant, name string) string {
	return filepath.Join(s.dir, tenant, name+".json")
}

// Ensure creates every missing secret in names and returns the names it created.
// Existing secrets are never changed, so a retried first deploy keeps its values.
func (s *Store) Ensure(_ context.Context, tenant, name string, names []string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	have, err := s.read(tenant, name)
	if err != nil {
		return nil, err
	}
	var created []string
	for _, n := range names {
		if _, ok := have[n]; ok {
			continue
		}
		v, err := NewValue()
		if err != nil {
			return nil, err
		}
		have[n] = v
		created = append(created, n)
	}
	if len(created) == 0 {
		return nil, nil
	}
	sort.Strings(created)
	return created, s.write(tenant, name, have)
}

// Get returns the instance's secrets (empty when none were bootstrapped).
func (s *Store) Get(_ context.Context, tenant, name string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read(tenant, name)
}

// Forget deletes the instance's secrets; deleting nothing is not an error.
func (s *Store) Forget(_ context.Context, tenant, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.path(tenant, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (s *Store) read(tenant, name string) (map[string]string, error) {
	data, err := os.ReadFile(s.path(tenant, name))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("secrets of %s/%s: %w", tenant, name, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("secrets of %s/%s: corrupt store file: %w", tenant, name, err)
	}
	return m, nil
}

func (s *Store) write(tenant, name string, m map[string]string) error {
	p := s.path(tenant, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".secrets-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
