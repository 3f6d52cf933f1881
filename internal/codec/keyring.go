// Package codec encrypts Temporal payloads (AES-256-GCM) with a keyring that
// supports rotation by key ID, and serves that codec over HTTP for the Temporal UI.
package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/keylist"
)

// The environment variables that hold the key text or name its file.
const (
	EnvKey     = "SLIPWAY_CODEC_KEY"
	EnvKeyFile = "SLIPWAY_CODEC_KEY_FILE"
	// KeyFileName is the dev key file inside a state dir (`slipway dev` creates it).
	KeyFileName = "codec.keys"
)

const keyBytes = 32 // AES-256

var idPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Keyring holds AES-256 keys by ID. The first key encrypts; all of them decrypt,
// so a rotation puts the new key first and keeps the old ones until their histories are gone.
type Keyring struct {
	active string
	ids    []string
	aeads  map[string]cipher.AEAD
}

// ActiveID is the ID of the key that encrypts.
func (k *Keyring) ActiveID() string { return k.active }

// IDs lists every key ID, the active one first.
func (k *Keyring) IDs() []string { return append([]string(nil), k.ids...) }

// Parse reads ID:BASE64KEY entries separated by commas or newlines; blank lines
// and lines starting with # are skipped. source names where text came from in errors.
func Parse(source, text string) (*Keyring, error) {
	return parse(source, text, func(int) string { return source })
}

// ParseFile reads a key file, which must not be readable by group or others.
func ParseFile(path string) (*Keyring, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKeyFile, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, &KeyFileModeError{Path: path, Mode: st.Mode()}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKeyFile, err)
	}
	return parse(path, string(data), func(line int) string { return fmt.Sprintf("%s:%d", path, line) })
}

// FromEnv reads SLIPWAY_CODEC_KEY or the file SLIPWAY_CODEC_KEY_FILE names;
// with neither it returns *NoKeyError.
func FromEnv() (*Keyring, error) { return Load("") }

// Load is FromEnv with a fallback key file (the dev one) used when neither
// variable is set and the file exists.
func Load(fallback string) (*Keyring, error) {
	text, file := os.Getenv(EnvKey), os.Getenv(EnvKeyFile)
	switch {
	case text != "" && file != "":
		return nil, &BothSetError{}
	case text != "":
		return Parse(EnvKey, text)
	case file != "":
		return ParseFile(file)
	}
	if fallback != "" {
		if _, err := os.Stat(fallback); err == nil {
			return ParseFile(fallback)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dev key file: %w", err)
		}
	}
	return nil, &NoKeyError{Fallback: fallback}
}

// parse does the work of Parse; at names the source of a line in errors.
func parse(source, text string, at func(line int) string) (*Keyring, error) {
	k := &Keyring{aeads: map[string]cipher.AEAD{}}
	entries := keylist.Split(text)
	for i, e := range entries {
		src, name := at(e.Line), fmt.Sprintf("entry %d", i+1)
		id, aead, err := parseEntry(e.Text)
		if err != nil {
			if id != "" {
				name += fmt.Sprintf(" (id %q)", id)
			}
			return nil, &KeyError{Source: src, Entry: name, Reason: err.Error()}
		}
		if _, dup := k.aeads[id]; dup {
			return nil, &KeyError{Source: src, Entry: fmt.Sprintf("%s (id %q)", name, id), Reason: "duplicate key id"}
		}
		if k.active == "" {
			k.active = id
		}
		k.ids = append(k.ids, id)
		k.aeads[id] = aead
	}
	if len(entries) == 0 {
		return nil, &EmptyKeyringError{Source: source}
	}
	return k, nil
}

// parseEntry returns the entry's ID once it is known to be valid, so errors can
// name it; nothing else of the entry ever reaches an error.
func parseEntry(entry string) (string, cipher.AEAD, error) {
	id, b64, ok := strings.Cut(entry, ":")
	if !ok {
		return "", nil, errors.New(`want ID:BASE64KEY, found no ":"`)
	}
	id, b64 = strings.TrimSpace(id), strings.TrimSpace(b64)
	if !idPattern.MatchString(id) {
		return "", nil, &BadIDError{Length: len(id)}
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return id, nil, errors.New("key is not valid standard base64")
	}
	if len(raw) != keyBytes {
		return id, nil, fmt.Errorf("key must decode to exactly %d bytes, got %d", keyBytes, len(raw))
	}
	aead, err := newAEAD(raw)
	return id, aead, err
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Generate makes a new random key entry, ID:BASE64KEY.
func Generate(id string) (string, error) {
	if !idPattern.MatchString(id) {
		return "", &BadIDError{Length: len(id)}
	}
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("random key: %w", err)
	}
	return id + ":" + base64.StdEncoding.EncodeToString(key), nil
}

// DefaultKeyID is a date-based ID such as k20261122, so rotated keys sort by age.
func DefaultKeyID(now time.Time) string { return "k" + now.UTC().Format("20060102") }

// ValidID reports whether id may name a key.
func ValidID(id string) bool { return idPattern.MatchString(id) }
