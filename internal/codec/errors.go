package codec

import (
	"fmt"
	"io/fs"
)

// NoKeyError: no key is configured anywhere slipway looks.
type NoKeyError struct {
	Fallback string // the dev key file that was looked for too ("" when none)
}

func (e *NoKeyError) Error() string {
	msg := "no payload encryption key: set " + EnvKey + " (ID:BASE64KEY entries) or " + EnvKeyFile +
		" (a 0600 file of them); make one with `slipway codec keygen -o FILE`"
	if e.Fallback != "" {
		msg += ", or run `slipway dev`, which creates " + e.Fallback
	}
	return msg
}

// BothSetError: SLIPWAY_CODEC_KEY and SLIPWAY_CODEC_KEY_FILE are both set; slipway will not guess.
type BothSetError struct{}

func (e *BothSetError) Error() string {
	return EnvKey + " and " + EnvKeyFile + " are both set: unset one of them"
}

// KeyError: one entry of a key text is wrong. It never holds key bytes.
type KeyError struct {
	Source string // SLIPWAY_CODEC_KEY, or FILE:LINE
	Entry  string // which entry: its position, and its ID when that is valid
	Reason string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Entry, e.Reason)
}

// EmptyKeyringError: a key text holds no entries.
type EmptyKeyringError struct{ Source string }

func (e *EmptyKeyringError) Error() string {
	return e.Source + ": no keys (want ID:BASE64KEY entries; make one with `slipway codec keygen`)"
}

// KeyFileModeError: the key file can be read by group or others.
type KeyFileModeError struct {
	Path string
	Mode fs.FileMode
}

func (e *KeyFileModeError) Error() string {
	return fmt.Sprintf("%s: key file mode %04o lets group/others read it: chmod 600 %s", e.Path, e.Mode.Perm(), e.Path)
}

// BadIDError: a key ID is not [A-Za-z0-9._-]{1,64}.
type BadIDError struct{ Length int }

func (e *BadIDError) Error() string {
	return fmt.Sprintf("key id (%d chars) must match [A-Za-z0-9._-]{1,64}", e.Length)
}

// UnknownKeyError: a payload was sealed with a key ID the keyring does not hold.
type UnknownKeyError struct{ ID string }

func (e *UnknownKeyError) Error() string {
	if e.ID == "" {
		return "encrypted payload has no encryption-key-id"
	}
	return fmt.Sprintf("encrypted payload uses key id %q, which is not in the keyring: add it (rotation keeps old keys after the new one)", e.ID)
}

// DecryptError: a payload failed authentication (wrong key, tampered data or metadata).
type DecryptError struct {
	KeyID  string
	Reason string
}

func (e *DecryptError) Error() string {
	return fmt.Sprintf("decrypt payload with key id %q: %s", e.KeyID, e.Reason)
}
