package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-version"
)

// EnvEnginesDir is where a worker finds engine binaries, laid out like scripts/tools.sh's cache:
// terraform-<version>/terraform and tofu-<version>/tofu (a leading "v" is allowed).
const EnvEnginesDir = "SLIPWAY_ENGINES_DIR"

// The engines a stack may name (config.EngineTerraform, config.EngineOpenTofu).
const (
	EngineTerraform = "terraform"
	EngineOpenTofu  = "opentofu"
)

// EngineFile records the workspace's engine beside its files ("opentofu ~> 1.10"), so it travels
// with a saved plan; a stored plan pins the exact version that made it ("opentofu = 1.10.10").
const EngineFile = "slipway_engine"

// engineBinaries is each engine's binary name inside its tools directory.
var engineBinaries = map[string]string{EngineTerraform: "terraform", EngineOpenTofu: "tofu"}

// Engine is one engine binary a worker has.
type Engine struct {
	Name    string
	Version *version.Version
	Path    string
}

func (e Engine) String() string { return e.Name + " " + e.Version.String() }

// Engines are the engine binaries a worker has, newest first within each engine.
type Engines []Engine

// engineSpec is a workspace's engine: a name and a version constraint (nil = any).
type engineSpec struct {
	name       string
	constraint version.Constraints
	raw        string
}

// parseEngineSpec reads "opentofu ~> 1.10" (EngineFile's line); "" is the worker's default terraform.
func parseEngineSpec(s string) (engineSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return engineSpec{}, nil
	}
	name, raw, _ := strings.Cut(s, " ")
	raw = strings.TrimSpace(raw)
	if _, ok := engineBinaries[name]; !ok {
		return engineSpec{}, &InvalidInputError{Field: "workspace engine", Value: s, Reason: "the engine must be terraform or opentofu"}
	}
	spec := engineSpec{name: name, raw: raw}
	if raw != "" {
		c, err := version.NewConstraint(raw)
		if err != nil {
			return engineSpec{}, &InvalidInputError{Field: "workspace engine", Value: s, Reason: "not a version constraint: " + err.Error()}
		}
		spec.constraint = c
	}
	return spec, nil
}

// Pick is the newest engine called name whose version meets constraint ("" = any), or an
// *EngineUnavailableError saying what this worker has.
func (es Engines) Pick(name, constraint string) (Engine, error) {
	spec, err := parseEngineSpec(strings.TrimSpace(name + " " + constraint))
	if err != nil {
		return Engine{}, err
	}
	if spec.name == "" {
		spec.name = EngineTerraform
	}
	return es.pick(spec)
}

func (es Engines) pick(spec engineSpec) (Engine, error) {
	var named bool
	for _, e := range es {
		if e.Name != spec.name {
			continue
		}
		named = true
		if spec.constraint == nil || spec.constraint.Check(e.Version) {
			return e, nil
		}
	}
	return Engine{}, &EngineUnavailableError{Engine: spec.name, Constraint: spec.raw, NoEngine: !named, Have: es.Names()}
}

// Names lists the engines as "opentofu 1.10.10", newest first within each engine.
func (es Engines) Names() []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// EngineUnavailableError: this worker has no binary of the engine, or none whose version
// meets the constraint.
type EngineUnavailableError struct {
	Engine, Constraint string
	// NoEngine is true when the worker has no binary of that engine at all.
	NoEngine bool
	Have     []string
}

func (e *EngineUnavailableError) Error() string {
	want := e.Engine
	if e.Constraint != "" {
		want += fmt.Sprintf(" %q", e.Constraint)
	}
	have := "none"
	if len(e.Have) > 0 {
		have = strings.Join(e.Have, ", ")
	}
	return fmt.Sprintf("this worker has no %s (it has: %s; put engine binaries in $%s as terraform-<version>/terraform or tofu-<version>/tofu)",
		want, have, EnvEnginesDir)
}

// versionTimeout bounds `<engine> version -json` at discovery: a binary that hangs is not an engine.
const versionTimeout = 20 * time.Second

// DiscoverEngines finds the engines in dir (tools.sh's layout; a missing dir has none) and adds
// defaultTerraform, the worker's own terraform (FindBinary), when it is not one of them. Each
// binary is asked its version: a directory's name is not trusted.
func DiscoverEngines(ctx context.Context, dir, defaultTerraform string) (Engines, error) {
	var es Engines
	seen := map[string]bool{}
	add := func(name, path string) error {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		v, err := engineVersion(ctx, abs)
		if err != nil {
			return fmt.Errorf("engine %s at %s: %w", name, abs, err)
		}
		es = append(es, Engine{Name: name, Version: v, Path: abs})
		return nil
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s=%s: %w", EnvEnginesDir, dir, err)
		}
		for _, ent := range entries {
			name, bin, ok := engineDir(ent.Name())
			if !ok {
				continue
			}
			p := filepath.Join(dir, ent.Name(), bin)
			if _, err := checkExecutable(p, p); err != nil {
				continue // a tools dir also holds half-built and unrelated entries
			}
			if err := add(name, p); err != nil {
				return nil, err
			}
		}
	}
	if defaultTerraform != "" {
		if err := add(EngineTerraform, defaultTerraform); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(es, func(a, b Engine) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return b.Version.Compare(a.Version)
	})
	return es, nil
}

// engineDir reads a tools directory entry "terraform-v1.11.4" or "tofu-1.10.10".
func engineDir(entry string) (name, bin string, ok bool) {
	for engine, b := range engineBinaries {
		rest, found := strings.CutPrefix(entry, b+"-")
		if !found {
			continue
		}
		if _, err := version.NewVersion(strings.TrimPrefix(rest, "v")); err == nil {
			return engine, b, true
		}
	}
	return "", "", false
}

// engineVersion asks a terraform or tofu binary its version (both print terraform_version).
func engineVersion(ctx context.Context, bin string) (*version.Version, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version", "-json")
	cmd.Env = []string{"CHECKPOINT_DISABLE=1", "HOME=" + os.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("version -json: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		return nil, fmt.Errorf("version -json printed no terraform_version: %q", out)
	}
	return version.NewVersion(v.Version)
}

// engineMarker, inside terraform's data dir, names the engine binary that initialised it.
const engineMarker = "slipway-engine"

// marker is what engineMarker holds for e: "" for the default terraform, which wrote none.
func (e Engine) marker() string {
	if e.Version == nil {
		return ""
	}
	return e.String()
}

// markInitialized records which engine ran init, so a change of engine inits again.
func (r *Runner) markInitialized(ws Workspace, e Engine) error {
	p := filepath.Join(r.Dir(ws), dataDir, engineMarker)
	if e.marker() == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeIfChanged(p, []byte(e.marker()+"\n"))
}

// engineOf is the engine the workspace's working directory records (EngineFile) and its binary:
// the default terraform (zero Engine) when it records none.
func (r *Runner) engineOf(ws Workspace) (Engine, string, error) {
	data, err := os.ReadFile(filepath.Join(r.recordDir(ws), EngineFile))
	if errors.Is(err, os.ErrNotExist) {
		return Engine{}, r.binary, nil
	}
	if err != nil {
		return Engine{}, "", err
	}
	spec, err := parseEngineSpec(string(data))
	if err != nil {
		return Engine{}, "", err
	}
	if spec.name == "" {
		return Engine{}, r.binary, nil
	}
	e, err := r.engines.pick(spec)
	if err != nil {
		return Engine{}, "", err
	}
	return e, e.Path, nil
}

// Engines are the engine binaries this runner picks from.
func (r *Runner) Engines() Engines { return r.engines }
