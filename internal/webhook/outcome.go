package webhook

import (
	"net/http"
	"strings"
)

// Outcome names what became of a delivery by the status it was answered with, one of a few
// values so that a metric labelled with it stays small.
func Outcome(status int) string {
	switch status {
	case http.StatusAccepted:
		return "recorded"
	case http.StatusOK:
		return "duplicate"
	case http.StatusNoContent:
		return "ignored"
	case http.StatusUnauthorized:
		return "refused" // a bad signature or token
	case http.StatusServiceUnavailable:
		return "unavailable" // Temporal could not record it; the forge redelivers
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return "invalid"
	default:
		return "other" // unknown path, method, or a limit of the server's
	}
}

// forgeLabel is the provider an endpoint serves, or "unknown" for any other path, so a client
// cannot grow the label with paths of its choosing.
func forgeLabel(path string) string {
	if p, ok := providerOf[strings.TrimSuffix(path, "/")]; ok {
		return p
	}
	return "unknown"
}
