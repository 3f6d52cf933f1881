package terraform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Settings wiring code reads: where terraform installs providers from, and the worker's cache of them.
const (
	// EnvProviderMirror is a filesystem provider mirror (a directory) or a network mirror (https://
	// URL): terraform installs every provider from it and nowhere else, through a CLI config slipway writes.
	EnvProviderMirror = "SLIPWAY_PROVIDER_MIRROR"
	// EnvPluginCache is the worker's provider plugin cache (default <state dir>/plugin-cache).
	EnvPluginCache = "SLIPWAY_PLUGIN_CACHE"
)

// cliConfigName is the CLI configuration slipway writes under the state dir for a mirror.
const cliConfigName = "terraform.tfrc"

// WithProviderMirror installs providers only from src: an absolute directory laid out as
// terraform's filesystem mirror, or an https:// network mirror. No registry is asked, as on an
// air-gapped platform, so every worker installs the same packages.
func WithProviderMirror(src string) Option {
	return func(r *Runner) {
		if src == "" {
			return
		}
		if strings.Contains(src, "://") {
			u, err := url.Parse(src)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: EnvProviderMirror, Value: src,
					Reason: "must be an absolute directory or an https:// network mirror URL"})
				return
			}
			r.mirrorURL = strings.TrimSuffix(src, "/") + "/"
			return
		}
		if !filepath.IsAbs(src) {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: EnvProviderMirror, Value: src,
				Reason: "must be an absolute directory or an https:// network mirror URL"})
			return
		}
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: EnvProviderMirror, Value: src,
				Reason: "is not a directory (a filesystem mirror: <host>/<namespace>/<type>/...)"})
			return
		}
		r.mirrorDir = filepath.Clean(src)
	}
}

// WithPluginCache keeps installed providers in dir, shared by every workspace of this worker:
// a warm init links them instead of copying. Inits are serialised per worker (initGate), since
// terraform's cache is not safe for concurrent inits.
func WithPluginCache(dir string) Option {
	return func(r *Runner) {
		if dir == "" {
			return
		}
		if !filepath.IsAbs(dir) {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: EnvPluginCache, Value: dir, Reason: "must be an absolute path"})
			return
		}
		r.pluginCache = filepath.Clean(dir)
	}
}

// MirrorDir is the filesystem provider mirror; "" when there is none (or it is a network one).
func (r *Runner) MirrorDir() string { return r.mirrorDir }

// setupProviders makes the plugin cache and writes slipway's CLI config (the mirror, or direct
// installation only) unless the operator passes an existing TF_CLI_CONFIG_FILE; New calls it.
func (r *Runner) setupProviders() error {
	if r.pluginCache == "" {
		if v, ok := r.lookup("TF_PLUGIN_CACHE_DIR"); ok && v != "" {
			r.pluginCache = v // the operator's own setting, from before SLIPWAY_PLUGIN_CACHE
		} else {
			r.pluginCache = filepath.Join(r.stateDir, "plugin-cache")
		}
	}
	if err := os.MkdirAll(r.pluginCache, dirPerm); err != nil {
		return &InvalidInputError{Field: EnvPluginCache, Value: r.pluginCache, Reason: err.Error()}
	}
	var cfg string
	switch {
	case r.mirrorDir != "":
		cfg = fmt.Sprintf("  filesystem_mirror {\n    path = %q\n  }\n", r.mirrorDir)
	case r.mirrorURL != "":
		cfg = fmt.Sprintf("  network_mirror {\n    url = %q\n  }\n", r.mirrorURL)
	default:
		if f, ok := r.lookup("TF_CLI_CONFIG_FILE"); ok && f != "" {
			if _, err := os.Stat(f); err == nil {
				return nil // the operator's own, passed through
			}
		}
		// Without a provider_installation block terraform also installs from implied
		// directories, the instance's HOME and working directory among them.
		cfg = "  direct {}\n"
	}
	cfg = "# Written by slipway (" + EnvProviderMirror + "): providers come from here only.\n" +
		"provider_installation {\n" + cfg + "}\n"
	r.cliConfig = filepath.Join(r.stateDir, cliConfigName)
	if err := writeModeIfChanged(r.cliConfig, []byte(cfg), 0o644); err != nil {
		return &InvalidInputError{Field: EnvProviderMirror, Value: r.mirrorDir + r.mirrorURL, Reason: err.Error()}
	}
	return nil
}

// providerEnv adds where terraform installs and caches providers to env: slipway's CLI config
// replaces the worker's TF_CLI_CONFIG_FILE, so no other installation method can creep in.
func (r *Runner) providerEnv(env map[string]string) {
	env["TF_PLUGIN_CACHE_DIR"] = r.pluginCache
	if r.cliConfig != "" {
		env["TF_CLI_CONFIG_FILE"] = r.cliConfig
	}
}

// initGate admits one init at a time on this worker, and one per plugin cache across the
// processes sharing it (flock): terraform writes the cache without locking it.
func (r *Runner) initGate(ctx context.Context) (release func(), err error) {
	select {
	case r.initSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	unlock, err := lockDir(ctx, r.pluginCache)
	if err != nil {
		<-r.initSem
		return nil, err
	}
	return func() { unlock(); <-r.initSem }, nil
}

var (
	typeRE     = regexp.MustCompile(`(?m)^\s*(?:resource|data|ephemeral)\s+"([^"]+)"`)
	providerRE = regexp.MustCompile(`(?m)^\s*(?:provider\s+"|required_providers\b)`)
	moduleRE   = regexp.MustCompile(`(?m)^\s*source\s*=\s*"([^"]*)"`)
)

// needsProviders reports whether the configuration in dir may install a provider, so its init
// must take the cache's turn; one of terraform_data alone (built in) never touches the cache and
// keeps running in parallel. Anything unclear counts as needing providers.
func needsProviders(dir string) bool {
	needs := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || needs {
			return err
		}
		if d.IsDir() {
			if d.Name() == dataDir || d.Name() == appliedDir {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".tf.json"):
			needs = true
		case strings.HasSuffix(p, ".tf"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if providerRE.Match(b) {
				needs = true
			}
			for _, m := range typeRE.FindAllSubmatch(b, -1) {
				needs = needs || !strings.HasPrefix(string(m[1]), "terraform_")
			}
			for _, m := range moduleRE.FindAllSubmatch(b, -1) {
				src := string(m[1])
				needs = needs || !(strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../"))
			}
		}
		return nil
	})
	return needs || err != nil
}
