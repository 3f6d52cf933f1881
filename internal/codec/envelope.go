package codec

import (
	"crypto/rand"
	"fmt"
)

// Sealed is a value encrypted at rest (envelope encryption): Data is sealed with a fresh
// data key, and DataKey is that key sealed with the keyring key KeyID. Rotating the keyring
// re-seals nothing: old rows stay readable while their key ID stays in the keyring.
type Sealed struct {
	KeyID   string
	DataKey []byte // nonce || AES-256-GCM(data key), additional data: KeyID and the caller's aad
	Data    []byte // nonce || AES-256-GCM(plaintext), additional data: the caller's aad
}

// Seal encrypts plain for storage. aad names where the value lives (its table and row), so a
// value copied to another row, or to another instance's row, fails to open.
func (k *Keyring) Seal(plain, aad []byte) (Sealed, error) {
	dk := make([]byte, keyBytes)
	if _, err := rand.Read(dk); err != nil {
		return Sealed{}, fmt.Errorf("seal: data key: %w", err)
	}
	inner, err := newAEAD(dk)
	if err != nil {
		return Sealed{}, err
	}
	data, err := sealWith(inner, plain, aad)
	if err != nil {
		return Sealed{}, err
	}
	wrapped, err := sealWith(k.aeads[k.active], dk, keyAAD(k.active, aad))
	if err != nil {
		return Sealed{}, err
	}
	return Sealed{KeyID: k.active, DataKey: wrapped, Data: data}, nil
}

// Open decrypts s sealed for aad. An unknown key ID is an *UnknownKeyError and a failed
// authentication a *DecryptError, both naming the key ID; nothing half-decrypted is returned.
func (k *Keyring) Open(s Sealed, aad []byte) ([]byte, error) {
	outer, ok := k.aeads[s.KeyID]
	if !ok {
		return nil, &UnknownKeyError{ID: s.KeyID}
	}
	dk, err := openWith(outer, s.DataKey, keyAAD(s.KeyID, aad))
	if err != nil {
		return nil, &DecryptError{KeyID: s.KeyID, Reason: "data key: " + err.Error()}
	}
	inner, err := newAEAD(dk)
	if err != nil {
		return nil, &DecryptError{KeyID: s.KeyID, Reason: "data key: " + err.Error()}
	}
	plain, err := openWith(inner, s.Data, aad)
	if err != nil {
		return nil, &DecryptError{KeyID: s.KeyID, Reason: "data: " + err.Error()}
	}
	return plain, nil
}

func keyAAD(id string, aad []byte) []byte {
	return append([]byte(id+"\x00"), aad...)
}

func sealWith(aead interface {
	NonceSize() int
	Seal(dst, nonce, plaintext, additionalData []byte) []byte
}, plain, aad []byte) ([]byte, error) {
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: nonce: %w", err)
	}
	return aead.Seal(nonce, nonce, plain, aad), nil
}

func openWith(aead interface {
	NonceSize() int
	Overhead() int
	Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error)
}, data, aad []byte) ([]byte, error) {
	if len(data) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("too short (%d bytes)", len(data))
	}
	plain, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("authentication failed (wrong key, or the value or where it is stored was altered)")
	}
	return plain, nil
}
