// Package httpserve runs an http.Handler on a listener safely enough to face a
// network: read, write and idle timeouts, a share of connections and of requests
// still arriving per client address, a cap on requests at work that only whole
// requests take, optional TLS, and a graceful shutdown that lets accepted
// requests finish.
package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Server holds checked settings; one Server may serve several listeners in turn.
type Server struct {
	c   config
	tls *tls.Config // nil: plain HTTP
}

// New checks opts and, with WithTLS, loads the certificate and key now, so a bad
// file is reported before anything listens.
func New(opts ...Option) (*Server, error) {
	s := &Server{c: defaults()}
	for _, o := range opts {
		if err := o(&s.c); err != nil {
			return nil, err
		}
	}
	if s.c.certFile != "" {
		cfg, err := loadTLS(s.c.certFile, s.c.keyFile)
		if err != nil {
			return nil, err
		}
		s.tls = cfg
	}
	return s, nil
}

// Serve runs h on ln with opts until ctx ends; see Server.Serve.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts ...Option) error {
	s, err := New(opts...)
	if err != nil {
		_ = ln.Close()
		return err
	}
	return s.Serve(ctx, ln, h)
}

// Scheme is "https" when the server speaks TLS, else "http".
func (s *Server) Scheme() string {
	if s.tls != nil {
		return "https"
	}
	return "http"
}

// Serve runs h on ln until ctx ends, then stops accepting connections and gives
// in-flight requests the shutdown grace to finish (their contexts stay live
// until then). It returns nil after a clean shutdown, a *GraceExceededError when
// requests had to be cut off, or the listener's error. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	log := s.c.log
	// Handlers must not see ctx's cancellation: shutdown waits for them instead.
	base, cutOff := context.WithCancel(context.WithoutCancel(ctx))
	defer cutOff()
	// net/http reports handler panics and TLS handshake failures here.
	errorLog, _ := zap.NewStdLogAt(log, zapcore.WarnLevel)
	srv := &http.Server{
		Handler:           newLimiter(h, s.c),
		ReadHeaderTimeout: s.c.readHeader,
		ReadTimeout:       s.c.read,
		WriteTimeout:      s.c.write,
		IdleTimeout:       s.c.idle,
		MaxHeaderBytes:    s.c.maxHeaderBytes,
		TLSConfig:         s.tls,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       markOverShare,
		ErrorLog:          errorLog,
	}
	refusedLog := sampled(log)
	ln = &clientListener{Listener: ln, conns: newTally(), max: s.c.maxConnsPerClient, refuse: func(key string) {
		refusedLog.Warn("client over twice its share of connections: closed a new one", zap.String("client", key), zap.Int("max_conns_per_client", s.c.maxConnsPerClient))
	}}
	errc := make(chan error, 1)
	go func() {
		if s.tls != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: no new connections; in-flight requests may finish", zap.Duration("grace", s.c.grace))
	shut, cancel := context.WithTimeout(context.Background(), s.c.grace)
	defer cancel()
	err := srv.Shutdown(shut)
	if err != nil {
		// Connections first: a handler that returns on the cut-off would otherwise have its empty
		// 200 written before its connection closed, telling the client its request succeeded.
		_ = srv.Close()
		cutOff()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("shutdown grace ran out: cut off requests still in flight", zap.Duration("grace", s.c.grace))
		return &GraceExceededError{Grace: s.c.grace}
	}
	return err
}

func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, &TLSFileError{Which: "certificate", Path: certFile, Err: err}
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, &TLSFileError{Which: "key", Path: keyFile, Err: err}
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, &TLSPairError{CertFile: certFile, KeyFile: keyFile, Err: err}
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}, nil
}
