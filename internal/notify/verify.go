package notify

import (
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultTolerance is how far a delivery's timestamp may be from the receiver's clock when
// Verify is given no tolerance.
const DefaultTolerance = 5 * time.Minute

// Verify checks a webhook delivery as a receiver gets it: the raw body, the headers, the
// receiver's clock. The signature must match timestamp + "." + body under secret (compared in
// constant time), the timestamp must be within tolerance of now in either direction
// (tolerance <= 0 means DefaultTolerance), and the X-Slipway-Delivery and X-Slipway-Event
// headers must agree with the signed body, since headers are not signed themselves. It returns
// the delivery ID to dedupe on (see Replays). Errors are *VerifyError naming the header at fault.
func Verify(secret []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) (deliveryID string, err error) {
	if len(secret) == 0 {
		return "", &VerifyError{Reason: "no secret to verify with"}
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	id, ts, sig := h.Get(HeaderDelivery), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	switch {
	case id == "":
		return "", &VerifyError{Header: HeaderDelivery, Reason: "missing"}
	case ts == "":
		return "", ErrMissingTimestamp
	case sig == "":
		return "", ErrMissingSignature
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sent < 0 {
		return "", &VerifyError{Header: HeaderTimestamp, Reason: "malformed", Detail: "want Unix seconds"}
	}
	got, err := hex.DecodeString(strings.TrimPrefix(sig, signaturePrefix))
	if !strings.HasPrefix(sig, signaturePrefix) || err != nil || len(got) != 32 {
		return "", &VerifyError{Header: HeaderSignature, Reason: "malformed", Detail: "want sha256=<64 hex digits>"}
	}
	if !hmac.Equal(got, mac(secret, ts, body)) {
		return "", ErrBadSignature
	}
	if skew := now.Sub(time.Unix(sent, 0)); skew > tolerance || skew < -tolerance {
		return "", &VerifyError{Header: HeaderTimestamp, Reason: ErrStale.Reason,
			Detail: fmt.Sprintf("%s from now, tolerance %s", skew.Round(time.Second), tolerance)}
	}
	var signed struct {
		ID   string `json:"id"`
		Kind Kind   `json:"kind"`
	}
	if err := json.Unmarshal(body, &signed); err != nil {
		return "", &VerifyError{Reason: "the body is not a slipway event", Detail: err.Error()}
	}
	if signed.ID != id {
		return "", &VerifyError{Header: HeaderDelivery, Reason: "does not match the signed body's id"}
	}
	if ev := h.Get(HeaderEvent); ev != "" && Kind(ev) != signed.Kind {
		return "", &VerifyError{Header: HeaderEvent, Reason: "does not match the signed body's kind"}
	}
	return signed.ID, nil
}

// DefaultReplayHorizon is how long Replays remembers an ID by default: twice
// DefaultTolerance, so an ID is remembered for as long as Verify could accept its request.
const DefaultReplayHorizon = 2 * DefaultTolerance

// DefaultReplayMax bounds Replays by default.
const DefaultReplayMax = 100_000

// Replays is the set of delivery IDs a receiver has accepted recently, so it can refuse a
// replay. It forgets an ID after Horizon: by then Verify refuses the request's timestamp
// anyway, provided Horizon is at least the tolerance given to Verify. It also holds at most
// Max IDs, forgetting the oldest first. The zero value is ready to use with the defaults;
// set the fields before first use. Safe for concurrent use.
type Replays struct {
	Horizon time.Duration    // 0 means DefaultReplayHorizon
	Max     int              // 0 means DefaultReplayMax
	Now     func() time.Time // nil means time.Now

	mu    sync.Mutex
	at    map[string]time.Time // ID -> when it was accepted
	order []seenID             // acceptance order, oldest first from head
	head  int
}

type seenID struct {
	id string
	at time.Time
}

// NewReplays returns a Replays that remembers IDs for horizon.
func NewReplays(horizon time.Duration) *Replays { return &Replays{Horizon: horizon} }

// Seen reports whether id was accepted within the horizon; if not, it records id as accepted
// now and returns false. Call it only after Verify succeeds, so forged requests cannot fill it.
func (r *Replays) Seen(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.evict(now)
	if at, ok := r.at[id]; ok && now.Sub(at) < r.horizon() {
		return true
	}
	if r.at == nil {
		r.at = map[string]time.Time{}
	}
	r.at[id] = now
	r.order = append(r.order, seenID{id: id, at: now})
	for len(r.at) > r.max() && r.head < len(r.order) {
		r.pop()
	}
	return false
}

// Forget removes id, so a retry of a delivery the receiver failed to handle is accepted.
func (r *Replays) Forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.at, id)
}

// Len is how many IDs are remembered.
func (r *Replays) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evict(r.now())
	return len(r.at)
}

// evict forgets IDs accepted longer than the horizon ago.
func (r *Replays) evict(now time.Time) {
	for r.head < len(r.order) && now.Sub(r.order[r.head].at) >= r.horizon() {
		r.pop()
	}
}

// pop drops the oldest entry; the map entry goes only if it is that entry (not a newer
// acceptance of the same ID after Forget or expiry).
func (r *Replays) pop() {
	e := r.order[r.head]
	r.order[r.head] = seenID{}
	r.head++
	if at, ok := r.at[e.id]; ok && at.Equal(e.at) {
		delete(r.at, e.id)
	}
	if r.head > 1024 && r.head*2 > len(r.order) {
		r.order = append([]seenID(nil), r.order[r.head:]...)
		r.head = 0
	}
}

func (r *Replays) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Replays) horizon() time.Duration {
	if r.Horizon > 0 {
		return r.Horizon
	}
	return DefaultReplayHorizon
}

func (r *Replays) max() int {
	if r.Max > 0 {
		return r.Max
	}
	return DefaultReplayMax
}
