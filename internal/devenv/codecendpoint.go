package devenv

import (
	"context"
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
// handler and CORS rules of `slipway codec-server` and no token (loopback only).
type codecEndpoint struct {
	URL     string // http://127.0.0.1:PORT
	codec   *codec.Codec
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
	ctx, cancel := context.WithCancel(context.Background())
	c := &codecEndpoint{URL: "http://" + ln.Addr().String(), codec: codec.New(keys), cancel: cancel, done: make(chan error, 1)}
	c.allow(nil)
	go func() { c.done <- srv.Serve(ctx, ln, http.HandlerFunc(c.serve)) }()
	return c, nil
}

// allow sets the UI origins that get CORS headers (exact match), replacing the old ones.
func (c *codecEndpoint) allow(origins []string) {
	h := codec.Handler(c.codec, origins, "")
	c.origins.Store(&origins)
	c.handler.Store(&h)
}

// Origins are the origins allowed now.
func (c *codecEndpoint) Origins() []string { return *c.origins.Load() }

func (c *codecEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	(*c.handler.Load()).ServeHTTP(w, r)
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
