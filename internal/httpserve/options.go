package httpserve

import (
	"fmt"
	"time"

	"go.uber.org/zap"
)

// Defaults: the handlers behind these servers answer in milliseconds, so
// every limit is generous for them and short for a client that stalls.
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 10 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultMaxConcurrent     = 64
	DefaultQueueWait         = 100 * time.Millisecond
	DefaultShutdownGrace     = 30 * time.Second
	// DefaultMaxPerClient is a client address's share of requests still arriving: a
	// forge's burst of 32 deliveries, half the default work slots.
	DefaultMaxPerClient = 32
	// DefaultMaxConnsPerClient fits a forge's burst of 32 while the last burst's connections close.
	DefaultMaxConnsPerClient = 64
	// DefaultMaxBodyBytes fits the largest body these servers take: a Temporal UI page of payloads.
	DefaultMaxBodyBytes = 64 << 20
	// DefaultMaxBufferedBytes bounds the bodies being read at once, across every client address:
	// per-address shares alone let a peer with many addresses (an IPv6 /48) hold memory without bound.
	DefaultMaxBufferedBytes = 64 << 20
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
	maxConcurrent                 int
	maxPerClient                  int // 0: DefaultMaxPerClient, or max concurrent if smaller
	maxConnsPerClient             int
	maxBody                       int64
	maxBuffered                   int64
	queueWait                     time.Duration
	grace                         time.Duration
	certFile, keyFile             string
	log                           *zap.Logger
}

func defaults() config {
	return config{
		readHeader:        DefaultReadHeaderTimeout,
		read:              DefaultReadTimeout,
		write:             DefaultWriteTimeout,
		idle:              DefaultIdleTimeout,
		maxHeaderBytes:    DefaultMaxHeaderBytes,
		maxConcurrent:     DefaultMaxConcurrent,
		maxConnsPerClient: DefaultMaxConnsPerClient,
		maxBody:           DefaultMaxBodyBytes,
		maxBuffered:       DefaultMaxBufferedBytes,
		queueWait:         DefaultQueueWait,
		grace:             DefaultShutdownGrace,
		log:               zap.NewNop(),
	}
}

// duration builds an Option for a timeout where 0 means "no limit" (net/http's meaning).
func duration(name string, d time.Duration, set func(*config)) Option {
	return func(c *config) error {
		if d < 0 {
			return &OptionError{Option: name, Reason: fmt.Sprintf("%s is negative", d)}
		}
		set(c)
		return nil
	}
}

// WithReadHeaderTimeout bounds reading a request's headers (a slow-loris client is cut off here).
func WithReadHeaderTimeout(d time.Duration) Option {
	return duration("read header timeout", d, func(c *config) { c.readHeader = d })
}

// WithReadTimeout bounds reading a whole request, body included; 0 means no limit.
func WithReadTimeout(d time.Duration) Option {
	return duration("read timeout", d, func(c *config) { c.read = d })
}

// WithWriteTimeout bounds the time from the end of the request headers to the end of the response; 0 means no limit.
func WithWriteTimeout(d time.Duration) Option {
	return duration("write timeout", d, func(c *config) { c.write = d })
}

// WithIdleTimeout bounds how long a keep-alive connection waits for its next request; 0 means the read timeout.
func WithIdleTimeout(d time.Duration) Option {
	return duration("idle timeout", d, func(c *config) { c.idle = d })
}

// WithQueueWait sets how long a request waits for a free slot before it is answered 503; 0 refuses at once.
func WithQueueWait(d time.Duration) Option {
	return duration("queue wait", d, func(c *config) { c.queueWait = d })
}

// WithShutdownGrace sets how long in-flight requests get to finish once the context ends.
func WithShutdownGrace(d time.Duration) Option {
	return duration("shutdown grace", d, func(c *config) { c.grace = d })
}

// WithMaxHeaderBytes bounds the size of a request's headers.
func WithMaxHeaderBytes(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max header bytes", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxHeaderBytes = n
		return nil
	}
}

// WithMaxConcurrent caps the requests handled at once; the rest are answered 503, never queued.
func WithMaxConcurrent(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max concurrent", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxConcurrent = n
		return nil
	}
}

// WithMaxPerClient caps the requests one client address may have still arriving
// (headers read, body not yet whole); more are answered 503 with Retry-After at
// once. IPv6 clients count by their /64.
func WithMaxPerClient(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max per client", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxPerClient = n
		return nil
	}
}

// WithMaxConnsPerClient caps the connections one client address may hold open: a
// request on a connection over it is answered 503 with Retry-After, and one over
// twice it is closed as soon as it is accepted.
func WithMaxConnsPerClient(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max connections per client", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxConnsPerClient = n
		return nil
	}
}

// WithMaxBodyBytes bounds a request's body; a larger one is answered 413 and never reaches the handler.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max body bytes", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxBody = n
		return nil
	}
}

// WithMaxBufferedBytes bounds the request bodies held while they arrive, across all clients;
// a request whose body would go over it is answered 503 with Retry-After before it is read.
func WithMaxBufferedBytes(n int64) Option {
	return func(c *config) error {
		if n < 1 {
			return &OptionError{Option: "max buffered bytes", Reason: fmt.Sprintf("want at least 1, got %d", n)}
		}
		c.maxBuffered = n
		return nil
	}
}

// buffered is the budget of body bytes held at once: as set, but always room for one whole body.
func (c config) buffered() int64 { return max(c.maxBuffered, c.maxBody) }

// perClientReading is a client address's share: as set, or the default but never
// more than the work slots.
func (c config) perClientReading() int {
	if c.maxPerClient > 0 {
		return c.maxPerClient
	}
	return min(DefaultMaxPerClient, c.maxConcurrent)
}

// WithTLS serves HTTPS (TLS 1.2 or newer) with a PEM certificate (chain) and its key.
// Both empty means plain HTTP; one without the other is an error.
func WithTLS(certFile, keyFile string) Option {
	return func(c *config) error {
		switch {
		case certFile == "" && keyFile != "":
			return &OptionError{Option: "TLS", Reason: "a key file without a certificate file"}
		case certFile != "" && keyFile == "":
			return &OptionError{Option: "TLS", Reason: "a certificate file without a key file"}
		}
		c.certFile, c.keyFile = certFile, keyFile
		return nil
	}
}

// WithLogger sets where shutdown, refusals and net/http's own errors are logged (default: nowhere).
func WithLogger(l *zap.Logger) Option {
	return func(c *config) error {
		if l != nil {
			c.log = l
		}
		return nil
	}
}
