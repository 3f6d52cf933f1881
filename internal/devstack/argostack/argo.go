package argostack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Argo calls argocd-server's REST API with the session token. body (nil for none) is
// JSON-encoded; Content-Type is application/json on every method, since argocd-server
// answers 415 without it, DELETE included.
func (s *Stack) Argo(ctx context.Context, method, path string, body any) (status int, resp []byte, err error) {
	return s.argo(ctx, method, path, body)
}

func (s *Stack) argo(ctx context.Context, method, path string, body any) (int, []byte, error) {
	if !strings.HasPrefix(path, "/") {
		return 0, nil, fmt.Errorf("argostack: argocd path %q must start with /", path)
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return 0, nil, fmt.Errorf("argostack: argocd %s %s: encode body: %w", method, path, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, s.ArgoURL+path, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.ArgoToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.ArgoToken)
	}
	resp, err := s.plainHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// login trades the initial admin password for a session token (POST /api/v1/session).
func (s *Stack) login(ctx context.Context, password string) error {
	status, body, err := s.argo(ctx, http.MethodPost, "/api/v1/session", map[string]string{"username": "admin", "password": password})
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return &StatusError{Method: http.MethodPost, URL: "/api/v1/session", Status: status, Body: string(body)}
	}
	var sess struct{ Token string }
	if err := json.Unmarshal(body, &sess); err != nil || sess.Token == "" {
		return fmt.Errorf("argostack: argocd session answer has no token: %s", body)
	}
	s.ArgoToken = sess.Token
	return nil
}
