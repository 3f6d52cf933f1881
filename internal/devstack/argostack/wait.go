package argostack

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// waitReady polls check until it reports true; it fails early, with p's log tail, when p
// exits or ctx ends. The last check error goes into the message.
func waitReady(ctx context.Context, p *process, what string, check func(context.Context) (bool, error)) error {
	var last error
	for {
		ok, err := check(ctx)
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if exitErr := p.Exited(); exitErr != nil {
			return failed(p, fmt.Errorf("%s: %w (last check: %v)", what, exitErr, last))
		}
		select {
		case <-ctx.Done():
			return failed(p, fmt.Errorf("%s: %w (last check: %v)", what, ctx.Err(), last))
		case <-time.After(pollEvery):
		}
	}
}

// httpOK is a check that GETs url and wants 200 and, when want is set, a body containing it.
func httpOK(client *http.Client, url, want string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			return false, fmt.Errorf("GET %s: HTTP %d: %.200s", url, resp.StatusCode, body)
		}
		return true, nil
	}
}

// insecureClient is for kube-controller-manager's self-signed /healthz only.
var insecureClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback health probe
}

// redisPing is a check that speaks RESP: PING must answer +PONG.
func redisPing(addr string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return false, err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte("PING\r\n")); err != nil {
			return false, err
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return false, err
		}
		if strings.TrimSpace(line) != "+PONG" {
			return false, errors.New("redis answered " + strings.TrimSpace(line))
		}
		return true, nil
	}
}
