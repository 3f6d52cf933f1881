package cli

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/logging"
)

// defaultUIOrigins are where the dev server's Temporal UI is opened from.
var defaultUIOrigins = devenv.UIOrigins(devenv.DefaultUIPort)

func (g *globals) codecServerCmd() *cobra.Command {
	var listen, tokenFile string
	var origins, hosts []string
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "codec-server [--listen 127.0.0.1:8081] [--origin URL ...] [--allowed-host NAME ...] [--auth-token-file F]",
		Short: "Serve the payload codec for the Temporal UI, so it shows decrypted inputs and results",
		Long: `Serves POST /encode and /decode with the same key as the worker (SLIPWAY_CODEC_KEY, SLIPWAY_CODEC_KEY_FILE,
or the dev key file). Paste the printed URL into the Temporal UI:
` + uiCodecSetting + `, then Apply
(a UI that ` + "`slipway dev`" + ` starts decodes by itself). Only the --origin URLs (exact match, default
the dev UI's) get CORS headers, and a request from any other origin is refused before anything is
decoded. It answers only to its own addresses in the Host header (and localhost on loopback), the
--listen host and the --allowed-host names, so a DNS-rebinding page is refused too. With
--auth-token-file, requests need "Authorization: Bearer TOKEN".
Whoever can reach it can decrypt payloads: on any --listen address but loopback (127.0.0.0/8, ::1,
localhost) it refuses to start without a token.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErr("--listen: %q: %v", listen, err)
			}
			if tokenFile == "" && !loopback(listen) {
				return usageErr("--listen: listening beyond loopback on %s: every decode would be open to the network; give --auth-token-file", listen)
			}
			for _, o := range origins {
				if err := checkOrigin(o); err != nil {
					return usageErr("--origin: %q: %v", o, err)
				}
			}
			for _, h := range hosts {
				if err := checkHostName(h); err != nil {
					return usageErr("--allowed-host: %q: %v", h, err)
				}
			}
			token := ""
			if tokenFile != "" {
				data, err := os.ReadFile(tokenFile)
				if err != nil {
					return usageErr("--auth-token-file: %v", err)
				}
				if token = strings.TrimSpace(string(data)); token == "" {
					return usageErr("--auth-token-file: %s is empty", tokenFile)
				}
			}
			zl, err := logging.New(logging.LevelFromEnv("info"))
			if err != nil {
				return usageErr("%v", err)
			}
			defer func() { _ = zl.Sync() }()
			srv, err := sf.server(zl)
			if err != nil {
				return err
			}
			keys, err := codec.Load(client.DevKeyFile())
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			u := srv.Scheme() + "://" + ln.Addr().String()
			g.printf("slipway codec server on %s (key %s; CORS for %s)\n", u, keys.ActiveID(), strings.Join(origins, ", "))
			g.printf("Temporal UI: %s: %s (then Apply)\n", uiCodecSetting, u)
			access := codec.Access{Origins: origins, Token: token, Hosts: append(codec.ListenerHosts(ln.Addr()), hosts...)}
			if host, _, _ := net.SplitHostPort(listen); host != "" && net.ParseIP(host) == nil {
				access.Hosts = append(access.Hosts, host)
			}
			// It dials nothing: ready while it serves with the key it loaded at start.
			tel, err := newServerTelemetry("slipway-codec-server")
			if err != nil {
				_ = ln.Close()
				return err
			}
			return srv.Serve(cmd.Context(), ln, tel.front(cmd.Context(), codec.Handler(codec.New(keys), access)))
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8081", "address to listen on; beyond loopback it needs --auth-token-file")
	cmd.Flags().StringArrayVar(&origins, "origin", defaultUIOrigins, "a Temporal UI origin allowed to call it (repeat for more)")
	cmd.Flags().StringArrayVar(&hosts, "allowed-host", nil, "a name it is reached by, beyond its own addresses (a proxy's or DNS name; repeat for more)")
	cmd.Flags().StringVar(&tokenFile, "auth-token-file", "", "file holding a bearer token that requests must carry")
	sf.add(cmd)
	return cmd
}

// loopback reports whether listen (host:port) is reachable from this machine only:
// 127.0.0.0/8, ::1 or localhost. An empty host, 0.0.0.0 and :: mean every interface.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkOrigin accepts what a browser sends as Origin: scheme://host[:port], nothing more.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("want http:// or https://")
	case u.Host == "":
		return errors.New("no host")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("an origin is scheme://host[:port] only, with no path")
	}
	return nil
}

// hostLabel is one DNS label: letters, digits and inner hyphens.
var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// checkHostName accepts a DNS name or an IP address, nothing more: no scheme, port or path.
func checkHostName(h string) error {
	if net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")) != nil {
		return nil
	}
	labels := strings.Split(strings.TrimSuffix(h, "."), ".")
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return errors.New("want a host name or an IP address, with no scheme, port or path")
		}
	}
	return nil
}

// serveFlags are the network-facing settings `webhook serve` and `codec-server` share.
type serveFlags struct {
	read, write, idle, grace  time.Duration
	maxConcurrent             int
	perClient, connsPerClient int
	tlsCert, tlsKey           string
}

func (f *serveFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.DurationVar(&f.read, "read-timeout", httpserve.DefaultReadTimeout, "longest time to read a whole request, body included (0: no limit)")
	fs.DurationVar(&f.write, "write-timeout", httpserve.DefaultWriteTimeout, "longest time from the end of a request's headers to the end of its answer (0: no limit)")
	fs.DurationVar(&f.idle, "idle-timeout", httpserve.DefaultIdleTimeout, "how long a keep-alive connection may wait for its next request (0: the read timeout)")
	fs.IntVar(&f.maxConcurrent, "max-concurrent", httpserve.DefaultMaxConcurrent, "requests handled at once, counted once their bodies have arrived; more are answered 503 with Retry-After: 1")
	fs.IntVar(&f.perClient, "max-per-client", httpserve.DefaultMaxPerClient, "requests one client address may have still arriving (IPv6: per /64); more are answered 503 with Retry-After: 1")
	fs.IntVar(&f.connsPerClient, "max-conns-per-client", httpserve.DefaultMaxConnsPerClient, "connections one client address may hold open (IPv6: per /64); requests on more are answered 503 with Retry-After: 1, and past twice this they are closed at once")
	fs.DurationVar(&f.grace, "shutdown-grace", httpserve.DefaultShutdownGrace, "on SIGINT/SIGTERM, how long requests in flight get to finish")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate (chain) to serve HTTPS with, TLS 1.2+ (with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
}

// server checks the flags and builds the server; a bad value is a usage error naming its flag.
// extra options come after the flags' (a server's own body limit).
func (f *serveFlags) server(log *zap.Logger, extra ...httpserve.Option) (*httpserve.Server, error) {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--read-timeout", f.read}, {"--write-timeout", f.write}, {"--idle-timeout", f.idle}, {"--shutdown-grace", f.grace}} {
		if d.v < 0 {
			return nil, usageErr("%s: %s is negative (0 means no limit)", d.flag, d.v)
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--max-concurrent", f.maxConcurrent}, {"--max-per-client", f.perClient}, {"--max-conns-per-client", f.connsPerClient}} {
		if n.v < 1 {
			return nil, usageErr("%s: %d: want at least 1", n.flag, n.v)
		}
	}
	switch {
	case f.tlsCert != "" && f.tlsKey == "":
		return nil, usageErr("--tls-key: --tls-cert needs its key: give both or neither")
	case f.tlsCert == "" && f.tlsKey != "":
		return nil, usageErr("--tls-cert: --tls-key needs its certificate: give both or neither")
	}
	srv, err := httpserve.New(append([]httpserve.Option{
		httpserve.WithReadTimeout(f.read), httpserve.WithWriteTimeout(f.write), httpserve.WithIdleTimeout(f.idle),
		httpserve.WithMaxConcurrent(f.maxConcurrent), httpserve.WithShutdownGrace(f.grace),
		httpserve.WithMaxPerClient(f.perClient), httpserve.WithMaxConnsPerClient(f.connsPerClient),
		httpserve.WithTLS(f.tlsCert, f.tlsKey), httpserve.WithLogger(log),
	}, extra...)...)
	var fe *httpserve.TLSFileError
	var pe *httpserve.TLSPairError
	switch {
	case errors.As(err, &fe) && fe.Which == "key":
		return nil, usageErr("--tls-key: %v", fe.Err)
	case errors.As(err, &fe):
		return nil, usageErr("--tls-cert: %v", fe.Err)
	case errors.As(err, &pe):
		return nil, usageErr("--tls-cert, --tls-key: %s and %s are not a PEM certificate and its key: %v", pe.CertFile, pe.KeyFile, pe.Err)
	case err != nil:
		return nil, usageErr("%v", err)
	}
	return srv, nil
}

// check fails a bad flag before anything is dialled or listened on.
func (f *serveFlags) check(*cobra.Command, []string) error {
	_, err := f.server(nil)
	return err
}
