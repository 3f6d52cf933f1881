package fakegitlab

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// writeJSON answers with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers GitLab-style: {"message": message}; message may be a string, list or map.
func writeError(w http.ResponseWriter, status int, message any) {
	writeJSON(w, status, map[string]any{"message": message})
}

// page slices items by the page/per_page query and sets GitLab's offset pagination headers.
func page[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 20
	}
	per = min(per, s.cfg.maxPerPage)
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 {
		n = 1
	}
	total := len(items)
	pages := max(1, (total+per-1)/per)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(n))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	if n < pages {
		h.Set("X-Next-Page", strconv.Itoa(n+1))
	}
	if n > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(n-1))
	}
	lo := min((n-1)*per, total)
	hi := min(lo+per, total)
	return items[lo:hi]
}
