package attest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/identity"
)

// HeaderKey is the Temporal header that carries a request's attestations.
const HeaderKey = "slipway-attestation"

// Kinds of request.
const (
	KindStart  = "start"
	KindUpdate = "update"
	KindSignal = "signal"
)

// MaxAge is how old an attestation may be when the worker handles it: a captured header
// cannot be replayed later than this.
const MaxAge = 10 * time.Minute

// maxSkew is how far ahead of the worker's clock an issuer's clock may run.
const maxSkew = 2 * time.Minute

// Attestation says that actor asked for one request: kind and name on workflow target, with
// arguments of the given digest, at issuedAt; MAC is over all of it with key KeyID.
type Attestation struct {
	Actor    identity.Actor `json:"actor"`
	Target   string         `json:"target"`
	Kind     string         `json:"kind"`
	Name     string         `json:"name"`
	Digest   string         `json:"digest"`
	IssuedAt time.Time      `json:"issuedAt"`
	KeyID    string         `json:"keyId"`
	MAC      string         `json:"mac"`
}

// canonical is the byte string the MAC covers: every field but the MAC, in a fixed order, the
// time as UTC nanoseconds (the same after any JSON round trip).
func (a Attestation) canonical() []byte {
	b, _ := json.Marshal(struct {
		V        int            `json:"v"`
		Actor    identity.Actor `json:"actor"`
		Target   string         `json:"target"`
		Kind     string         `json:"kind"`
		Name     string         `json:"name"`
		Digest   string         `json:"digest"`
		IssuedAt int64          `json:"issuedAt"`
		KeyID    string         `json:"keyId"`
	}{1, a.Actor, a.Target, a.Kind, a.Name, a.Digest, a.IssuedAt.UTC().UnixNano(), a.KeyID})
	return b
}

// Digest is the hex SHA-256 of the JSON of a request's arguments, as a JSON array.
func Digest(args ...any) (string, error) {
	if args == nil {
		args = []any{}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("attest: arguments: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Sign returns the attestation of one request, signed with the active key.
func (k *Keyring) Sign(actor identity.Actor, target, kind, name string, at time.Time, args ...any) (Attestation, error) {
	d, err := Digest(args...)
	if err != nil {
		return Attestation{}, err
	}
	a := Attestation{Actor: actor, Target: target, Kind: kind, Name: name, Digest: d, IssuedAt: at.UTC(), KeyID: k.ActiveID()}
	mac, _ := k.mac(a.KeyID, a.canonical())
	a.MAC = base64.StdEncoding.EncodeToString(mac)
	return a, nil
}

// Request is what the worker received, to check an attestation against.
type Request struct {
	Target string
	Kind   string
	Name   string
	Digest string
	// Now is the worker's time for the request (workflow.Now: from history, so replays agree).
	Now time.Time
	// NoExpiry skips the age check (for attestations issued by workflow code, whose delivery
	// waits for a worker however long it is down).
	NoExpiry bool
}

// Verify checks a against req: a known key, an intact MAC, the same target, kind, name and
// arguments, a valid actor, and an age within MaxAge. The error says why not.
func (k *Keyring) Verify(a Attestation, req Request) error {
	got, err := base64.StdEncoding.DecodeString(a.MAC)
	if err != nil {
		return fmt.Errorf("the attestation's MAC is not base64")
	}
	want, ok := k.mac(a.KeyID, a.canonical())
	if !ok {
		return fmt.Errorf("the attestation is signed with key %q, which this worker does not hold", a.KeyID)
	}
	if !hmac.Equal(got, want) {
		return fmt.Errorf("the attestation's MAC does not match: it was altered or signed with another key")
	}
	switch {
	case a.Target != req.Target:
		return fmt.Errorf("the attestation is for workflow %q, not %q", a.Target, req.Target)
	case a.Kind != req.Kind || a.Name != req.Name:
		return fmt.Errorf("the attestation is for %s %q, not %s %q", a.Kind, a.Name, req.Kind, req.Name)
	case a.Digest != req.Digest:
		return fmt.Errorf("the arguments differ from the ones the attestation covers")
	}
	if err := a.Actor.Validate(); err != nil {
		return fmt.Errorf("the attested actor is invalid: %w", err)
	}
	// Workflow code's own sends are delivered when a worker runs, however long none does; they
	// are bound to one target, name and argument digest, so no age limit applies to them.
	if !req.NoExpiry && !(a.Actor.Kind == identity.Service && a.Actor.Via == ViaWorkflow) {
		if age := req.Now.Sub(a.IssuedAt); age > MaxAge {
			return fmt.Errorf("the attestation expired: issued %s before the request was handled (at most %s)", age.Round(time.Second), MaxAge)
		} else if age < -maxSkew {
			return fmt.Errorf("the attestation is issued %s in the future", (-age).Round(time.Second))
		}
	}
	return nil
}

// decodeHeader returns the attestations in header, nil when it has none. dc is the payload
// converter (with its codec): the header names people, so history holds it sealed like the rest.
func decodeHeader(header map[string]*commonpb.Payload, dc converter.DataConverter) ([]Attestation, error) {
	p, ok := header[HeaderKey]
	if !ok || p == nil {
		return nil, nil
	}
	var as []Attestation
	if err := dc.FromPayload(p, &as); err != nil {
		return nil, fmt.Errorf("the %s header is not a list of attestations: %w", HeaderKey, err)
	}
	return as, nil
}

// add appends a to the attestations header already holds (an update-with-start or
// signal-with-start carries one for each half in the same header).
func add(header map[string]*commonpb.Payload, a Attestation, dc converter.DataConverter) error {
	as, err := decodeHeader(header, dc)
	if err != nil {
		as = nil
	}
	p, err := dc.ToPayload(append(as, a))
	if err != nil {
		return err
	}
	header[HeaderKey] = p
	return nil
}

// check returns the actor of the attestation in header that covers req, or why none does.
func (k *Keyring) check(header map[string]*commonpb.Payload, req Request, dc converter.DataConverter) (identity.Actor, error) {
	a, err := k.covering(header, req, dc)
	return a.Actor, err
}

// covering returns the attestation in header that covers req, or why none does.
func (k *Keyring) covering(header map[string]*commonpb.Payload, req Request, dc converter.DataConverter) (Attestation, error) {
	as, err := decodeHeader(header, dc)
	if err != nil {
		return Attestation{}, err
	}
	if len(as) == 0 {
		return Attestation{}, fmt.Errorf("%s %q carries no slipway attestation", req.Kind, req.Name)
	}
	var first error
	for _, a := range as {
		if a.Kind != req.Kind {
			continue
		}
		err := k.Verify(a, req)
		if err == nil {
			return a, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("%s %q carries no attestation of a %s", req.Kind, req.Name, req.Kind)
	}
	return Attestation{}, first
}

// Claimed returns the actor the header's attestation of a kind request names, unverified: for
// showing history to people (the worker verified it, or refused the request, when it ran).
func Claimed(header map[string]*commonpb.Payload, dc converter.DataConverter, kind string) (identity.Actor, bool) {
	as, err := decodeHeader(header, dc)
	if err != nil {
		return identity.Actor{}, false
	}
	for _, a := range as {
		if a.Kind == kind {
			return a.Actor, true
		}
	}
	return identity.Actor{}, false
}
