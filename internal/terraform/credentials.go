package terraform

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/slipway-dev/slipway/internal/credentials"
)

// credentialsDir holds a workspace's file credentials, inside its own HOME (which the sandbox binds).
const credentialsDir = ".slipway-credentials"

// WithCredentials hands each workspace's terraform the credentials its stack names, as the
// operator's mapping resolves them for its tenant and stack.
func WithCredentials(m credentials.Map) Option {
	return func(r *Runner) { r.creds = m }
}

// credentialsOf is the workspace's credential names: the caller's, else those Prepare recorded.
func (r *Runner) credentialsOf(ws Workspace) []string {
	if ws.Credentials != nil {
		return ws.Credentials
	}
	return strings.Fields(r.record(ws, CredentialsFile))
}

// addCredentials puts the stack's credentials into env: a variable's value as is, a file as
// the path of a private copy in the workspace's HOME. It returns the values to redact.
func (r *Runner) addCredentials(ws Workspace, env map[string]string) ([]string, error) {
	names := r.credentialsOf(ws)
	dir := filepath.Join(r.homeDir(ws), credentialsDir)
	// HOME is terraform's to write: anything but a directory there (a symlink to another
	// instance's directory) is removed, never followed.
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		if err := os.Remove(dir); err != nil {
			return nil, err
		}
	}
	if len(names) == 0 {
		// A credential the stack no longer names leaves no copy behind.
		_ = os.RemoveAll(dir)
		return nil, nil
	}
	vals, err := r.creds.Resolve(ws.Tenant, r.stackOf(ws), names, r.lookup)
	if err != nil {
		return nil, &InvalidInputError{Field: "credentials", Value: strings.Join(names, ","), Reason: err.Error()}
	}
	want := map[string]bool{}
	for _, v := range vals {
		if !v.File {
			env[v.As] = string(v.Data)
			continue
		}
		if err := os.MkdirAll(dir, dirPerm); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, v.Name)
		if err := writeIfChanged(path, v.Data); err != nil {
			return nil, err
		}
		want[v.Name] = true
		env[v.As] = path
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !want[e.Name()] {
				_ = os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return credentials.Secrets(vals), nil
}

// redactWriter copies whole lines to w with the secrets replaced; a line cut across writes is
// held until its end, so a value never slips through in two halves. nil w stays nil.
func redactWriter(w io.Writer, secrets []string) io.Writer {
	if w == nil || len(secrets) == 0 {
		return w
	}
	return &lineRedactor{w: w, secrets: secrets}
}

type lineRedactor struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
	partial []byte
}

// maxHeld bounds a line held for its end; a longer one is written redacted as it is.
const maxHeld = 64 << 10

func (l *lineRedactor) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	i := bytes.LastIndexByte(l.partial, '\n')
	if i < 0 && len(l.partial) < maxHeld {
		return len(p), nil
	}
	cut := i + 1
	if i < 0 {
		cut = len(l.partial)
	}
	out := credentials.Redact(string(l.partial[:cut]), l.secrets)
	l.partial = append(l.partial[:0], l.partial[cut:]...)
	if _, err := io.WriteString(l.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
