// Package attest proves that a start, update or signal came from one of slipway's own
// components: each carries a Temporal header signed with a shared HMAC key ring, and the worker
// verifies it before anything changes. People never hold the key; what reaches Temporal without
// a valid attestation (a direct `temporal workflow signal`, the Temporal UI, a forged start)
// changes nothing and is recorded as refused.
package attest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/keylist"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

// The environment variables that hold the key ring or name its file.
const (
	EnvKey     = "SLIPWAY_ATTEST_KEY"
	EnvKeyFile = "SLIPWAY_ATTEST_KEY_FILE"
	// KeyFileName is the dev key file in a state dir (slipway dev and the dev env create it).
	KeyFileName = "attest.key"
)

const keyBytes = 32

// Keyring holds HMAC-SHA256 keys by ID. The first key signs; all of them verify, so a rotation
// puts the new key first and drops the old one once no attestation it signed can still be fresh.
type Keyring struct {
	ids  []string
	keys map[string][]byte
}

// ActiveID is the ID of the key that signs.
func (k *Keyring) ActiveID() string { return k.ids[0] }

// KeyID is the ID of a key: the first 8 hex digits of its SHA-256.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:4])
}

// Parse reads base64 keys separated by commas or newlines; blank lines and lines starting with
// # are skipped. source names where text came from in errors (never the key itself).
func Parse(source, text string) (*Keyring, error) {
	k := &Keyring{keys: map[string][]byte{}}
	entries := keylist.Split(text)
	for i, e := range entries {
		n := i + 1
		raw, err := base64.StdEncoding.DecodeString(e.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: key %d is not valid standard base64", source, n)
		}
		if len(raw) != keyBytes {
			return nil, fmt.Errorf("%s: key %d must decode to exactly %d bytes, got %d", source, n, keyBytes, len(raw))
		}
		id := KeyID(raw)
		if _, dup := k.keys[id]; dup {
			return nil, fmt.Errorf("%s: key %d (id %s) is listed twice", source, n, id)
		}
		k.ids = append(k.ids, id)
		k.keys[id] = raw
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no key in it", source)
	}
	return k, nil
}

// ParseFile reads a key file, which must not be readable by group or others.
func ParseFile(path string) (*Keyring, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKeyFile, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: %s is readable by others (mode %v): chmod 600 it", EnvKeyFile, path, st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKeyFile, err)
	}
	return Parse(path, string(data))
}

// DevKeyFile is the key file in the default dev state dir.
func DevKeyFile() string { return filepath.Join(localdirs.DevState(), KeyFileName) }

// Load reads SLIPWAY_ATTEST_KEY or the file SLIPWAY_ATTEST_KEY_FILE names, else the dev key file
// if it exists; with none of them it returns *NoKeyError.
func Load() (*Keyring, error) {
	text, file := os.Getenv(EnvKey), os.Getenv(EnvKeyFile)
	switch {
	case text != "" && file != "":
		return nil, fmt.Errorf("%s and %s are both set: unset one of them", EnvKey, EnvKeyFile)
	case text != "":
		return Parse(EnvKey, text)
	case file != "":
		return ParseFile(file)
	}
	dev := DevKeyFile()
	if _, err := os.Stat(dev); err == nil {
		return ParseFile(dev)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dev attestation key: %w", err)
	}
	return nil, &NoKeyError{Fallback: dev}
}

// NoKeyError says no key ring was configured.
type NoKeyError struct{ Fallback string }

func (e *NoKeyError) Error() string {
	return "no attestation key: set " + EnvKey + " (base64 keys, comma-separated; the first signs) or " + EnvKeyFile +
		" (a file of them, mode 600); `head -c 32 /dev/urandom | base64` makes one (dev: " + e.Fallback + ", which slipway dev creates)"
}

// Generate returns a new key, base64.
func Generate() (string, error) {
	raw := make([]byte, keyBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// EnsureDevKey returns dir's key file, created (0600, one new key) unless it exists.
func EnsureDevKey(dir string) (string, error) {
	path := filepath.Join(dir, KeyFileName)
	key, err := Generate()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create dev attestation key: %w", err)
	}
	data := fmt.Sprintf("# slipway attestation keys (base64); the first one signs.\n%s\n", key)
	if _, err := localdirs.CreateOnce(path, []byte(data), 0o600); err != nil {
		return "", fmt.Errorf("write dev attestation key %s: %w", path, err)
	}
	return path, nil
}

// mac is the HMAC-SHA256 of msg under key id, or false when the ring has no such key.
func (k *Keyring) mac(id string, msg []byte) ([]byte, bool) {
	key, ok := k.keys[id]
	if !ok {
		return nil, false
	}
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil), true
}
