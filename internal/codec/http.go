package codec

import (
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// maxBody bounds one /encode or /decode request; a UI page of history fits easily.
const maxBody = 64 << 20

// Access says who may call a codec endpoint. Every check runs before the body is
// read, so a refused request decodes nothing. The zero value lets nobody in.
type Access struct {
	// Hosts are the names and addresses the endpoint answers to in the Host header
	// (case-insensitive, port ignored): its own addresses and the names the operator
	// gives. Any other Host is a DNS-rebinding page or a request meant elsewhere.
	Hosts []string
	// Origins are the browser origins allowed (exact match). A request that carries
	// any other Origin, "null" included, is refused; one with none is not a browser's.
	Origins []string
	// Token, when set, is a bearer token every request but a preflight must carry.
	Token string
	// PathToken, when set, is a secret first path segment every request, preflights
	// included, must start with (/PathToken/decode): a capability in the URL the UI
	// is given, for a UI that cannot send a bearer token.
	PathToken string
}

// Handler serves POST /encode and /decode (the SDK's remote codec protocol) to the
// callers a allows, with CORS for a.Origins. It is an httpserve.Admitter: behind
// httpserve, a refused request's body is never even read.
func Handler(c converter.PayloadCodec, a Access) http.Handler {
	h := &handler{inner: converter.NewPayloadCodecHTTPHandler(c), a: a}
	for _, host := range a.Hosts {
		h.hosts = append(h.hosts, hostName(host))
	}
	return h
}

type handler struct {
	inner http.Handler
	a     Access
	hosts []string // normalised by hostName
}

// Admit runs every check that needs no body.
func (h *handler) Admit(r *http.Request) (int, error) {
	if code, msg, _ := h.check(r); code != 0 {
		return code, errors.New(msg)
	}
	return 0, nil
}

// check refuses a foreign Host, an Origin that is not allowed, a missing path token
// and (but for a preflight) a missing bearer token, in that order; it reports
// whether the request is a browser's from an allowed origin.
func (h *handler) check(r *http.Request) (code int, msg string, allowed bool) {
	if !slices.Contains(h.hosts, hostName(r.Host)) {
		return http.StatusForbidden, "host not allowed: this codec endpoint does not answer to " + r.Host, false
	}
	origin, browser := r.Header["Origin"]
	allowed = browser && len(origin) == 1 && slices.Contains(h.a.Origins, origin[0])
	if browser && !allowed {
		return http.StatusForbidden, "origin not allowed", false
	}
	if h.a.PathToken != "" {
		if _, ok := cutPathToken(r.URL.Path, h.a.PathToken); !ok {
			return http.StatusForbidden, "missing or wrong codec token in the path", false
		}
	}
	if r.Method == http.MethodOptions {
		// A browser's preflight carries no credentials, so it never needs the bearer token.
		if !allowed {
			return http.StatusForbidden, "origin not allowed", false
		}
		return 0, "", true
	}
	if h.a.Token != "" && !bearerOK(r.Header.Get("Authorization"), h.a.Token) {
		return http.StatusUnauthorized, "missing or wrong bearer token", allowed
	}
	return 0, "", allowed
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Origin")
	code, msg, allowed := h.check(r)
	if allowed {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		hd.Set("Access-Control-Allow-Credentials", "true")
		hd.Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
		hd.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	}
	switch {
	case code == http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="slipway codec"`)
		http.Error(w, msg, code)
		return
	case code != 0:
		http.Error(w, msg, code)
		return
	case r.Method == http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if h.a.PathToken != "" {
		r.URL.Path, _ = cutPathToken(r.URL.Path, h.a.PathToken)
		r.URL.RawPath = ""
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	h.inner.ServeHTTP(w, r)
}

func bearerOK(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// cutPathToken checks that path is /token/rest in constant time and returns /rest.
func cutPathToken(path, token string) (string, bool) {
	seg, rest, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if subtle.ConstantTimeCompare([]byte(seg), []byte(token)) != 1 {
		return "", false
	}
	return "/" + rest, true
}

// hostName is a Host header's or a configured host's name, compared case-insensitively
// and without its port, brackets or trailing dot.
func hostName(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// ListenerHosts are the hosts an endpoint listening on addr answers to by itself:
// its IP address, every interface's for an unspecified one, and localhost when it
// listens on loopback.
func ListenerHosts(addr net.Addr) []string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	var hosts []string
	switch {
	case tcp.IP == nil || tcp.IP.IsUnspecified():
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				hosts = append(hosts, n.IP.String())
			}
		}
		hosts = append(hosts, "localhost")
	case tcp.IP.IsLoopback():
		hosts = append(hosts, tcp.IP.String(), "localhost")
	default:
		hosts = append(hosts, tcp.IP.String())
	}
	return hosts
}
