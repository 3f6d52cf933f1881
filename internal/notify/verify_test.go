package notify

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signed builds a delivery as the sender would.
func signed(id string, kind Kind, at time.Time) (http.Header, []byte) {
	body := []byte(fmt.Sprintf(`{"id":%q,"kind":%q,"message":"m","at":"2026-03-01T12:00:00Z"}`, id, kind))
	ts := fmt.Sprint(at.Unix())
	h := http.Header{}
	h.Set(HeaderDelivery, id)
	h.Set(HeaderEvent, string(kind))
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, Sign([]byte(testSecret), ts, body))
	return h, body
}

func TestVerifyRefusals(t *testing.T) {
	key := []byte(testSecret)
	tests := []struct {
		name   string
		change func(h http.Header, body []byte) []byte
		header string
		reason string
	}{
		{"missing delivery", func(h http.Header, b []byte) []byte { h.Del(HeaderDelivery); return b }, HeaderDelivery, "missing"},
		{"missing timestamp", func(h http.Header, b []byte) []byte { h.Del(HeaderTimestamp); return b }, HeaderTimestamp, "missing"},
		{"missing signature", func(h http.Header, b []byte) []byte { h.Del(HeaderSignature); return b }, HeaderSignature, "missing"},
		{"bad timestamp", func(h http.Header, b []byte) []byte { h.Set(HeaderTimestamp, "yesterday"); return b }, HeaderTimestamp, "malformed"},
		{"signature without prefix", func(h http.Header, b []byte) []byte {
			h.Set(HeaderSignature, h.Get(HeaderSignature)[len("sha256="):])
			return b
		}, HeaderSignature, "malformed"},
		{"signature not hex", func(h http.Header, b []byte) []byte { h.Set(HeaderSignature, "sha256=zz"); return b }, HeaderSignature, "malformed"},
		{"signature short", func(h http.Header, b []byte) []byte { h.Set(HeaderSignature, "sha256=abcd"); return b }, HeaderSignature, "malformed"},
		{"timestamp changed", func(h http.Header, b []byte) []byte { h.Set(HeaderTimestamp, fmt.Sprint(t0.Unix()+1)); return b }, HeaderSignature, "does not match the body"},
		{"body changed", func(h http.Header, b []byte) []byte { return append(b, ' ') }, HeaderSignature, "does not match the body"},
		{"delivery header swapped", func(h http.Header, b []byte) []byte { h.Set(HeaderDelivery, "other-id"); return b }, HeaderDelivery, "does not match the signed body's id"},
		{"event header swapped", func(h http.Header, b []byte) []byte { h.Set(HeaderEvent, "Ready"); return b }, HeaderEvent, "does not match the signed body's kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, body := signed("d-1", KindFailed, t0)
			body = tt.change(h, body)
			id, err := Verify(key, h, body, t0, time.Minute)
			assert.Empty(t, id)
			var ve *VerifyError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.header, ve.Header)
			assert.Equal(t, tt.reason, ve.Reason)
			assert.NotContains(t, err.Error(), testSecret)
		})
	}

	h, body := signed("d-1", KindFailed, t0)
	_, err := Verify(nil, h, body, t0, time.Minute)
	assert.Error(t, err)

	// A signed body that is not an event.
	h.Set(HeaderSignature, Sign(key, h.Get(HeaderTimestamp), []byte("not json")))
	_, err = Verify(key, h, []byte("not json"), t0, time.Minute)
	assert.ErrorContains(t, err, "the body is not a slipway event")
}

func TestVerifyTolerance(t *testing.T) {
	h, body := signed("d-1", KindFailed, t0)
	for _, skew := range []time.Duration{0, time.Minute, -time.Minute, 5 * time.Minute, -5 * time.Minute} {
		id, err := Verify([]byte(testSecret), h, body, t0.Add(skew), 0) // 0: DefaultTolerance
		assert.NoError(t, err, skew)
		assert.Equal(t, "d-1", id)
	}
	for _, skew := range []time.Duration{5*time.Minute + time.Second, -5*time.Minute - time.Second, 24 * time.Hour} {
		_, err := Verify([]byte(testSecret), h, body, t0.Add(skew), 0)
		assert.ErrorIs(t, err, ErrStale, skew)
	}
}

func TestReplays(t *testing.T) {
	now := t0
	r := &Replays{Horizon: 10 * time.Minute, Now: func() time.Time { return now }}
	assert.False(t, r.Seen("a"))
	assert.True(t, r.Seen("a"))
	assert.False(t, r.Seen("b"))
	assert.Equal(t, 2, r.Len())

	now = now.Add(9 * time.Minute)
	assert.True(t, r.Seen("a"), "still within the horizon")
	assert.False(t, r.Seen("c"))

	now = now.Add(2 * time.Minute) // a and b are 11 minutes old, c is 2
	assert.Equal(t, 1, r.Len(), "old entries are evicted")
	assert.False(t, r.Seen("a"), "forgotten after the horizon")
	assert.True(t, r.Seen("c"))

	r.Forget("c")
	assert.False(t, r.Seen("c"), "a forgotten ID is accepted again")
	assert.True(t, r.Seen("c"))

	// Re-accepting an ID after expiry is not undone when its older entry is evicted.
	now = now.Add(11 * time.Minute)
	assert.False(t, r.Seen("a"))
	now = now.Add(time.Minute)
	assert.True(t, r.Seen("a"))
}

func TestReplaysBounded(t *testing.T) {
	r := &Replays{Max: 3}
	for _, id := range []string{"a", "b", "c", "d"} {
		assert.False(t, r.Seen(id))
	}
	assert.Equal(t, 3, r.Len())
	assert.False(t, r.Seen("a"), "the oldest went first")
	assert.True(t, r.Seen("d"))

	// Many entries, all evicted: the backing slice is compacted, not grown forever.
	now := t0
	big := &Replays{Horizon: time.Second, Now: func() time.Time { return now }}
	for i := range 5000 {
		big.Seen(fmt.Sprint(i))
		now = now.Add(time.Millisecond)
	}
	assert.LessOrEqual(t, big.Len(), 1000)
	assert.Less(t, len(big.order), 5000)
}

func TestReplaysConcurrent(t *testing.T) {
	var r Replays // the zero value works
	var wg sync.WaitGroup
	accepted := make(chan string, 800)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				id := fmt.Sprint(i) // every goroutine offers the same 100 IDs
				if !r.Seen(id) {
					accepted <- id
				}
			}
		}()
	}
	wg.Wait()
	close(accepted)
	seen := map[string]int{}
	for id := range accepted {
		seen[id]++
	}
	assert.Len(t, seen, 100)
	for id, n := range seen {
		assert.Equal(t, 1, n, "id %s accepted %d times", id, n)
	}
}
