package apiserver

import (
	"embed"
	"net/http"
	"strings"
)

// UI is the tenant's page (/ui/): what its sign-in needs of the identity provider. The page is
// the same for everyone and holds no tenant's data, so it is served without a token; everything
// it shows it reads through the API with the person's own token.
type UI struct {
	Issuer   string
	ClientID string
	Scopes   string
}

//go:embed ui/index.html ui/app.js
var uiFiles embed.FS

// isUI says whether r asks for the page itself (never an API route).
func isUI(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/"))
}

// serveUI answers the page, its script and its sign-in settings; its policy lets it reach only
// this server and the identity provider, and no page may frame it.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self' "+s.o.UI.Issuer+"; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer") // the sign-in's code is in the page's URL
	h.Set("Cache-Control", "no-store")
	switch r.URL.Path {
	case "/ui":
		http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
	case "/ui/":
		serveFile(w, "ui/index.html", "text/html; charset=utf-8")
	case "/ui/app.js":
		serveFile(w, "ui/app.js", "text/javascript; charset=utf-8")
	case "/ui/config.json":
		writeJSON(w, http.StatusOK, map[string]string{"issuer": s.o.UI.Issuer, "clientId": s.o.UI.ClientID, "scopes": s.o.UI.Scopes})
	default:
		writeProblem(w, problem(http.StatusNotFound, "", r.URL.Path+": not part of the page", nil))
	}
}

func serveFile(w http.ResponseWriter, name, ctype string) {
	b, _ := uiFiles.ReadFile(name)
	w.Header().Set("Content-Type", ctype)
	_, _ = w.Write(b)
}
