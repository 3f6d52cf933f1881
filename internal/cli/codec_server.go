package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
)

// defaultUIOrigins are where the dev server's Temporal UI is opened from.
var defaultUIOrigins = []string{"http://localhost:8233", "http://127.0.0.1:8233"}

func (g *globals) codecServerCmd() *cobra.Command {
	var listen, tokenFile string
	var origins []string
	cmd := &cobra.Command{
		Use:   "codec-server [--listen 127.0.0.1:8081] [--origin URL ...] [--auth-token-file F]",
		Short: "Serve the payload codec for the Temporal UI, so it shows decrypted inputs and results",
		Long: `Serves POST /encode and /decode with the same key as the worker (SLIPWAY_CODEC_KEY, SLIPWAY_CODEC_KEY_FILE,
or the dev key file). Paste the printed URL into the Temporal UI: Settings -> Codec Server endpoint.
Only the --origin URLs (exact match, default the dev UI's) get CORS headers. With --auth-token-file,
requests need "Authorization: Bearer TOKEN". Whoever can reach it can decrypt payloads: keep it on loopback.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErr("--listen: %q: %v", listen, err)
			}
			for _, o := range origins {
				if err := checkOrigin(o); err != nil {
					return usageErr("--origin: %q: %v", o, err)
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
			keys, err := codec.Load(client.DevKeyFile())
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			u := "http://" + ln.Addr().String()
			g.printf("slipway codec server on %s (key %s; CORS for %s)\n", u, keys.ActiveID(), strings.Join(origins, ", "))
			g.printf("Temporal UI: Settings -> Codec Server endpoint: %s\n", u)
			return serveUntilDone(cmd.Context(), ln, codec.Handler(codec.New(keys), origins, token))
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8081", "address to listen on")
	cmd.Flags().StringArrayVar(&origins, "origin", defaultUIOrigins, "a Temporal UI origin allowed to call it (repeat for more)")
	cmd.Flags().StringVar(&tokenFile, "auth-token-file", "", "file holding a bearer token that requests must carry")
	return cmd
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

// serveUntilDone serves on ln until ctx ends, then shuts down cleanly.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
