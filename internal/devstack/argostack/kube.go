package argostack

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// fieldManager owns the fields Apply sets (server-side apply).
const fieldManager = "slipway"

func kubeClient(caPEM []byte) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("argostack: CA PEM holds no certificate")
	}
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}, nil
}

// Get does a raw GET on kube-apiserver (path like /api/v1/namespaces) as the admin user.
func (s *Stack) Get(ctx context.Context, path string) (status int, body []byte, err error) {
	return s.kube(ctx, http.MethodGet, path, "", nil)
}

// Kube sends one raw request to kube-apiserver as the admin user, as a person with kubectl
// would: a DELETE, or a PATCH with its content type (e.g. application/merge-patch+json).
func (s *Stack) Kube(ctx context.Context, method, path, contentType string, body []byte) (status int, resp []byte, err error) {
	return s.kube(ctx, method, path, contentType, body)
}

// Apply server-side-applies every document of a multi-document YAML manifest, forcing
// ownership to the slipway-test field manager. The resource name is guessed from the kind
// (ConfigMap→configmaps, NetworkPolicy→networkpolicies, Ingress→ingresses), which covers
// the kinds tests apply; the object is namespaced iff metadata.namespace is set.
func (s *Stack) Apply(ctx context.Context, manifest []byte) error {
	return s.apply(ctx, manifest)
}

func (s *Stack) kube(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	if !strings.HasPrefix(path, "/") {
		return 0, nil, fmt.Errorf("argostack: kube path %q must start with /", path)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.KubeURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.KubeToken)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.kubeHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// apply sends each document as an apply patch to the URL its apiVersion, kind and metadata name.
func (s *Stack) apply(ctx context.Context, manifest []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(manifest))
	for i := 0; ; i++ {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &ManifestError{Doc: i, Field: "(document)", Err: err}
		}
		if doc == nil {
			continue
		}
		path, err := objectPath(i, doc)
		if err != nil {
			return err
		}
		body, err := json.Marshal(doc) // JSON is YAML, and the apiserver accepts it as an apply patch
		if err != nil {
			return &ManifestError{Doc: i, Field: "(document)", Err: err}
		}
		status, resp, err := s.kube(ctx, http.MethodPatch, path+"?fieldManager="+fieldManager+"&force=true",
			"application/apply-patch+yaml", body)
		if err != nil {
			return err
		}
		if status != http.StatusOK && status != http.StatusCreated {
			return &StatusError{Method: http.MethodPatch, URL: path, Status: status, Body: string(resp)}
		}
	}
}

// objectPath maps a manifest document to its REST path; namespaced iff metadata.namespace is set.
func objectPath(i int, doc map[string]any) (string, error) {
	str := func(field string, v any) (string, error) {
		s, ok := v.(string)
		if !ok || s == "" {
			return "", &ManifestError{Doc: i, Field: field, Err: errors.New("missing or not a string")}
		}
		return s, nil
	}
	apiVersion, err := str("apiVersion", doc["apiVersion"])
	if err != nil {
		return "", err
	}
	kind, err := str("kind", doc["kind"])
	if err != nil {
		return "", err
	}
	meta, _ := doc["metadata"].(map[string]any)
	name, err := str("metadata.name", meta["name"])
	if err != nil {
		return "", err
	}
	prefix := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		prefix = "/api/" + apiVersion
	}
	if ns, ok := meta["namespace"]; ok {
		n, err := str("metadata.namespace", ns)
		if err != nil {
			return "", err
		}
		prefix += "/namespaces/" + n
	}
	return prefix + "/" + plural(kind) + "/" + name, nil
}

func plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "ss"):
		return k + "es"
	case strings.HasSuffix(k, "s"):
		return k // Endpoints
	default:
		return k + "s"
	}
}

// crdEstablished reports whether the named CRD has condition Established=True.
func (s *Stack) crdEstablished(ctx context.Context, name string) (bool, error) {
	status, body, err := s.kube(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "", nil)
	if err != nil || status != http.StatusOK {
		return false, err
	}
	var crd struct {
		Status struct {
			Conditions []struct{ Type, Status string }
		}
	}
	if err := json.Unmarshal(body, &crd); err != nil {
		return false, err
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == "Established" && c.Status == "True" {
			return true, nil
		}
	}
	return false, nil
}

// secretValue reads one key of a Secret; found is false while the Secret does not exist.
func (s *Stack) secretValue(ctx context.Context, namespace, name, key string) (value string, found bool, err error) {
	status, body, err := s.kube(ctx, http.MethodGet, "/api/v1/namespaces/"+namespace+"/secrets/"+name, "", nil)
	if err != nil {
		return "", false, err
	}
	if status == http.StatusNotFound {
		return "", false, nil
	}
	if status != http.StatusOK {
		return "", false, &StatusError{Method: http.MethodGet, URL: name, Status: status, Body: string(body)}
	}
	var sec struct{ Data map[string][]byte } // []byte: encoding/json decodes the base64
	if err := json.Unmarshal(body, &sec); err != nil {
		return "", false, err
	}
	v, ok := sec.Data[key]
	if !ok {
		return "", false, fmt.Errorf("argostack: secret %s/%s has no key %q", namespace, name, key)
	}
	return string(v), true, nil
}
