package devenv

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/httpserve"
)

// DefaultUIPort is where the dev server's Temporal UI listens unless told otherwise.
const DefaultUIPort = 8233

// codecStopGrace bounds Stop: on loopback a decode takes milliseconds.
const codecStopGrace = 2 * time.Second

// UIOrigins are the origins a browser sends for a UI on this loopback port: the
// UI is opened as localhost or 127.0.0.1, and CORS matches origins exactly.
func UIOrigins(port int) []string {
	p := strconv.Itoa(port)
	return []string{"http://localhost:" + p, "http://127.0.0.1:" + p}
}

// codecEndpoint serves the payload codec on loopback for the Temporal UI, with the
// handler, Host and CORS rules of `slipway codec-server`, behind a random path token:
// a page or process that knows only the port decodes nothing.
type codecEndpoint struct {
	URL     string // http://127.0.0.1:PORT/TOKEN: the capability the UI is given
	codec   *codec.Codec
	access  codec.Access // Hosts and PathToken; Origins are set by allow
	handler atomic.Pointer[http.Handler]
	origins atomic.Pointer[[]string]
	cancel  context.CancelFunc
	done    chan error
	stop    sync.Once
	stopErr error
}

// startCodecEndpoint listens on listen (a loopback host:port; when that port is
// taken, a free port on the same host) and serves the codec for keys. CORS allows
// no origin until allow is called, so the endpoint can be handed to a UI whose
// port is not known yet.
func startCodecEndpoint(keys *codec.Keyring, listen string) (*codecEndpoint, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("codec endpoint %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("codec endpoint %q: must listen on a loopback IP address: it decrypts for whoever reaches it", listen)
	}
	srv, err := httpserve.New(httpserve.WithShutdownGrace(codecStopGrace))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return nil, fmt.Errorf("codec endpoint: %w", err)
	}
	token, err := pathToken()
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &codecEndpoint{
		URL: "http://" + ln.Addr().String() + "/" + token, codec: codec.New(keys),
		access: codec.Access{Hosts: codec.ListenerHosts(ln.Addr()), PathToken: token},
		cancel: cancel, done: make(chan error, 1),
	}
	c.allow(nil)
	go func() { c.done <- srv.Serve(ctx, ln, c) }()
	return c, nil
}

// allow sets the UI origins that get CORS headers (exact match), replacing the old ones.
func (c *codecEndpoint) allow(origins []string) {
	a := c.access
	a.Origins = origins
	h := codec.Handler(c.codec, a)
	c.origins.Store(&origins)
	c.handler.Store(&h)
}

// pathToken is 256 random bits, URL-safe: the endpoint's capability.
func pathToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("codec endpoint token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Origins are the origins allowed now.
func (c *codecEndpoint) Origins() []string { return *c.origins.Load() }

func (c *codecEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*c.handler.Load()).ServeHTTP(w, r)
}

// Admit lets the server refuse a request from its headers (Host, Origin, token)
// before it reads the body.
func (c *codecEndpoint) Admit(r *http.Request) (int, error) {
	if a, ok := (*c.handler.Load()).(httpserve.Admitter); ok {
		return a.Admit(r)
	}
	return 0, nil
}

// Stop closes the listener and waits for requests in flight (up to codecStopGrace).
// It is safe to call more than once.
func (c *codecEndpoint) Stop() error {
	c.stop.Do(func() {
		c.cancel()
		c.stopErr = <-c.done
	})
	return c.stopErr
}
