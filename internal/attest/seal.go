package attest

import (
	"crypto/hmac"
	"encoding/hex"
	"strings"
)

// Seal is the active key's MAC of msg, "ID:hex": it marks a record slipway writes where others can
// write too (a stack's releases file on main), so a read can tell slipway's from anyone else's.
func (k *Keyring) Seal(msg []byte) string {
	id := k.ActiveID()
	sum, _ := k.mac(id, msg)
	return id + ":" + hex.EncodeToString(sum)
}

// Sealed says whether seal is the MAC of msg by a key of the ring.
func (k *Keyring) Sealed(seal string, msg []byte) bool {
	id, sum, ok := strings.Cut(seal, ":")
	got, err := hex.DecodeString(sum)
	if !ok || err != nil {
		return false
	}
	want, ok := k.mac(id, msg)
	return ok && hmac.Equal(got, want)
}
