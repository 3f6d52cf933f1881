package codec

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// maxBody bounds one /encode or /decode request; a UI page of history fits easily.
const maxBody = 64 << 20

// Handler serves POST /encode and /decode (the SDK's remote codec protocol) with
// CORS for allowedOrigins (exact match) and, when authToken is set, a bearer token.
func Handler(c converter.PayloadCodec, allowedOrigins []string, authToken string) http.Handler {
	inner := converter.NewPayloadCodecHTTPHandler(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		allowed := origin != "" && slices.Contains(allowedOrigins, origin)
		if allowed {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
			h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		}
		if r.Method == http.MethodOptions {
			// A browser's preflight carries no credentials, so it never needs the token.
			if !allowed {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if authToken != "" && !bearerOK(r.Header.Get("Authorization"), authToken) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="slipway codec"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		inner.ServeHTTP(w, r)
	})
}

func bearerOK(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}
