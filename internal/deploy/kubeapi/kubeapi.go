// Package kubeapi is the small part of the Kubernetes REST API the argocd deployer calls itself:
// it creates each instance's namespace and applies its bootstrapped secrets there, so neither
// travels through ArgoCD. A Client is made from a kubeconfig (SLIPWAY_KUBECONFIG).
package kubeapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// EnvKubeconfig names the kubeconfig of the cluster the argocd deployer's Applications go to.
const EnvKubeconfig = "SLIPWAY_KUBECONFIG"

// FieldManager owns the fields slipway applies (server-side apply).
const FieldManager = "slipway"

// Client talks to one kube-apiserver with one credential.
type Client struct {
	server *url.URL
	token  string
	http   *http.Client
}

// kubeconfig is the subset of a kubeconfig file slipway reads.
type kubeconfig struct {
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			Server                   string `yaml:"server"`
			CertificateAuthority     string `yaml:"certificate-authority"`
			CertificateAuthorityData string `yaml:"certificate-authority-data"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string `yaml:"name"`
		User struct {
			Token                 string `yaml:"token"`
			TokenFile             string `yaml:"tokenFile"`
			ClientCertificate     string `yaml:"client-certificate"`
			ClientCertificateData string `yaml:"client-certificate-data"`
			ClientKey             string `yaml:"client-key"`
			ClientKeyData         string `yaml:"client-key-data"`
		} `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster string `yaml:"cluster"`
			User    string `yaml:"user"`
		} `yaml:"context"`
	} `yaml:"contexts"`
}

// Load reads a kubeconfig: its current context's server, CA and credential (a bearer token,
// a token file or a client certificate). Errors name the file and the field, never a secret.
func Load(path string) (*Client, error) { return LoadContext(path, "") }

// LoadContext reads the kubeconfig's context called name ("" is the current one): the argocd
// deployer reaches each further cluster an app is placed on through the context named as
// the cluster is in ArgoCD.
func LoadContext(path, name string) (*Client, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKubeconfig, err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", EnvKubeconfig, path, err)
	}
	bad := func(field, why string) error { return fmt.Errorf("%s: %s: %s %s", EnvKubeconfig, path, field, why) }
	ctxName := kc.CurrentContext
	if name != "" {
		ctxName = name
	} else if ctxName == "" && len(kc.Contexts) == 1 {
		ctxName = kc.Contexts[0].Name
	}
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == ctxName {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	if clusterName == "" {
		return nil, bad("current-context", fmt.Sprintf("%q names no context with a cluster", ctxName))
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	c := &Client{}
	found := false
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		found = true
		u, err := url.Parse(cl.Cluster.Server)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, bad("clusters["+clusterName+"].server", "must be an https URL")
		}
		c.server = u
		ca, err := fileOrData(rel(cl.Cluster.CertificateAuthority), cl.Cluster.CertificateAuthorityData)
		if err != nil {
			return nil, bad("clusters["+clusterName+"].certificate-authority", err.Error())
		}
		if ca != nil {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(ca) {
				return nil, bad("clusters["+clusterName+"].certificate-authority", "holds no PEM certificate")
			}
			tlsConf.RootCAs = pool
		}
	}
	if !found {
		return nil, bad("clusters", fmt.Sprintf("has no cluster %q", clusterName))
	}
	for _, us := range kc.Users {
		if us.Name != userName {
			continue
		}
		c.token = us.User.Token
		if us.User.TokenFile != "" {
			tok, err := os.ReadFile(rel(us.User.TokenFile))
			if err != nil {
				return nil, bad("users["+userName+"].tokenFile", err.Error())
			}
			c.token = strings.TrimSpace(string(tok))
		}
		cert, err := fileOrData(rel(us.User.ClientCertificate), us.User.ClientCertificateData)
		if err != nil {
			return nil, bad("users["+userName+"].client-certificate", err.Error())
		}
		key, err := fileOrData(rel(us.User.ClientKey), us.User.ClientKeyData)
		if err != nil {
			return nil, bad("users["+userName+"].client-key", err.Error())
		}
		if cert != nil || key != nil {
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				return nil, bad("users["+userName+"].client-certificate", "and client-key do not make a key pair")
			}
			tlsConf.Certificates = []tls.Certificate{pair}
		}
	}
	if c.token == "" && len(tlsConf.Certificates) == 0 {
		return nil, bad("users["+userName+"]", "has no token, tokenFile or client certificate")
	}
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: tracing.HTTPTransport(&http.Transport{TLSClientConfig: tlsConf})}
	return c, nil
}

func fileOrData(file, data string) ([]byte, error) {
	switch {
	case data != "":
		return base64.StdEncoding.DecodeString(data)
	case file != "":
		return os.ReadFile(file)
	}
	return nil, nil
}

// Server is the API server's URL.
func (c *Client) Server() string { return c.server.String() }

// StatusError is an answer other than 2xx; Reason is the Status object's reason, Message its message.
type StatusError struct {
	Method, Path string
	Status       int
	Reason       string
	Message      string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("kube-apiserver: %s %s: HTTP %d %s: %s", e.Method, e.Path, e.Status, e.Reason, e.Message)
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

// IsPermanent reports an answer that retrying the same request cannot change: refused
// credentials or rights, or an invalid object.
func IsPermanent(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusBadRequest, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// Get reads the object at path into out.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, "", nil, out)
}

// Apply server-side-applies obj at path (the object's own URL), owning its fields as slipway.
func (c *Client) Apply(ctx context.Context, path string, obj any, out any) error {
	return c.do(ctx, http.MethodPatch, path+"?fieldManager="+FieldManager+"&force=true", "application/apply-patch+yaml", obj, out)
}

// MergePatch sends a JSON merge patch to path (a null value removes a key).
func (c *Client) MergePatch(ctx context.Context, path string, patch any) error {
	return c.do(ctx, http.MethodPatch, path, "application/merge-patch+json", patch, nil)
}

// Delete deletes the object at path; already gone is success.
func (c *Client) Delete(ctx context.Context, path string) error {
	err := c.do(ctx, http.MethodDelete, path, "", nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Client) do(ctx context.Context, method, path, contentType string, body, out any) error {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("kube-apiserver: %s %s: encode: %w", method, path, err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.server.String(), "/")+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("kube-apiserver: %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var st struct{ Reason, Message string }
		_ = json.Unmarshal(data, &st)
		if st.Message == "" {
			st.Message = http.StatusText(resp.StatusCode)
		}
		// The path only: never the body, which may be a Secret.
		return &StatusError{Method: method, Path: strings.SplitN(path, "?", 2)[0], Status: resp.StatusCode, Reason: st.Reason, Message: st.Message}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("kube-apiserver: %s %s: decode: %w", method, path, err)
		}
	}
	return nil
}
