package httpserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// limit lets at most n requests into h at once. A request that finds no slot
// within wait is answered 503 at once, so a flood costs a goroutine per
// connection for at most wait, never an unbounded queue.
func limit(h http.Handler, n int, wait time.Duration, log *zap.Logger) http.Handler {
	slots := make(chan struct{}, n)
	// One "busy" line a second is enough to tell an operator the cap is hit.
	busyLog := log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return zapcore.NewSamplerWithOptions(c, time.Second, 1, 0)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acquire(r, slots, wait) {
			if r.Context().Err() != nil {
				return // the client left while waiting
			}
			inFlight := len(slots)
			busyLog.Warn("server busy: refusing requests with 503", zap.Int("in_flight", inFlight), zap.Int("max_concurrent", n))
			busy(w, inFlight, n)
			return
		}
		defer func() { <-slots }()
		h.ServeHTTP(w, r)
	})
}

func acquire(r *http.Request, slots chan struct{}, wait time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-r.Context().Done():
		return false
	}
}

func busy(w http.ResponseWriter, inFlight, n int) {
	body, _ := json.Marshal(map[string]string{
		"error": fmt.Sprintf("server busy: %d requests in flight, the limit is %d (--max-concurrent)", inFlight, n),
	})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(append(body, '\n'))
}
