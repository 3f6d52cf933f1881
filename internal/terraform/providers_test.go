package terraform

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// timeConfig uses the real hashicorp/time provider: time_static records when it was created.
var timeConfig = map[string][]byte{"main.tf": []byte(`
terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}

resource "time_static" "born" {}

output "born" {
  value = time_static.born.rfc3339
}
`)}

// timeMirror lays out a filesystem mirror offering the built hashicorp/time; a provider not
// built skips the test unless CI requires it.
func timeMirror(t *testing.T, versions ...string) tfmirror.Mirror {
	t.Helper()
	p := tfmirror.Time()
	if _, err := os.Stat(p.Binary); err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_TERRAFORM") == "1" {
			t.Fatalf("%v (build it with scripts/tools.sh terraform-provider-time)", err)
		}
		t.Skipf("%v (build it with scripts/tools.sh terraform-provider-time)", err)
	}
	ps := []tfmirror.Provider{p}
	for _, v := range versions {
		ps = append(ps, tfmirror.Provider{Source: p.Source, Version: v, Binary: p.Binary})
	}
	return tfmirror.Layout(t, ps...)
}

// addVersion offers the same provider under one more version in an existing mirror, as an
// operator publishing a newer release would.
func addVersion(t *testing.T, m tfmirror.Mirror, version string) {
	t.Helper()
	p := tfmirror.Time()
	bin, err := os.ReadFile(p.Binary)
	require.NoError(t, err)
	dir := filepath.Join(m.Dir, "registry.terraform.io", p.Source, version, "linux_amd64")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "terraform-provider-time_v"+version), bin, 0o755))
}

var lockedVersionRE = regexp.MustCompile(`(?m)^\s*version\s*=\s*"([^"]+)"`)

func lockedVersion(t *testing.T, r *Runner, ws Workspace) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir(ws), depLockFile))
	require.NoError(t, err)
	m := lockedVersionRE.FindSubmatch(b)
	require.NotNil(t, m, string(b))
	return string(m[1])
}

// A worker with an empty disk installs the real provider from the mirror only (no registry is
// reachable), through the CLI config slipway writes; the lock file it gets matches the mirror.
func TestProviderFromMirrorOnEmptyDisk(t *testing.T) {
	m := timeMirror(t)
	cache := filepath.Join(t.TempDir(), "cache")
	r := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(cache))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, timeConfig)
	p, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Summary.Add)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	out, err := r.Outputs(ctx, ws)
	require.NoError(t, err)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT`, out["born"])

	cfg, err := os.ReadFile(filepath.Join(r.stateDir, cliConfigName))
	require.NoError(t, err)
	assert.Contains(t, string(cfg), "filesystem_mirror")
	assert.NotContains(t, string(cfg), "direct", "the mirror only: no registry")
	cached, err := filepath.Glob(filepath.Join(cache, "registry.terraform.io/hashicorp/time/*/linux_amd64/terraform-provider-time*"))
	require.NoError(t, err)
	assert.Len(t, cached, 1, "the package went to the worker's plugin cache")
	lock, err := os.ReadFile(filepath.Join(r.Dir(ws), depLockFile))
	require.NoError(t, err)
	require.NoError(t, CheckLockFile(m.Dir, "terraform/"+depLockFile, lock), "terraform's own lock file passes slipway's check")
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, r, ws))

	// Figures: terraform init on an empty cache, then warm (the same lock file, the cache linked).
	again := Workspace{Tenant: "acme", Name: "again"}
	require.NoError(t, r.Prepare(ctx, again, map[string][]byte{"main.tf": timeConfig["main.tf"], depLockFile: lock}))
	began := time.Now()
	require.NoError(t, r.Init(ctx, again))
	warm := time.Since(began)
	cold := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(filepath.Join(t.TempDir(), "cold")))
	require.NoError(t, cold.Prepare(ctx, again, map[string][]byte{"main.tf": timeConfig["main.tf"], depLockFile: lock}))
	began = time.Now()
	require.NoError(t, cold.Init(ctx, again))
	t.Logf("figure: terraform init with hashicorp/time from the mirror: cold cache %v, warm cache %v", time.Since(began).Round(time.Millisecond), warm.Round(time.Millisecond))
	link, err := os.Readlink(filepath.Join(r.Dir(again), ".terraform/providers/registry.terraform.io/hashicorp/time", tfmirror.TimeVersion, "linux_amd64"))
	require.NoError(t, err, "a warm init links the cached package")
	assert.True(t, strings.HasPrefix(link, cache), link)
}

// Concurrent inits of many workspaces on one worker, on a cold cache, all succeed and share one
// cached package: the inits are serialised, so terraform never writes the cache twice at once.
func TestConcurrentInitsShareOneCache(t *testing.T) {
	m := timeMirror(t)
	r := newRunner(t, WithProviderMirror(m.Dir))
	ctx := context.Background()
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := Workspace{Tenant: "acme", Name: "w" + string(rune('a'+i))}
			if errs[i] = r.Prepare(ctx, ws, timeConfig); errs[i] == nil {
				errs[i] = r.Init(ctx, ws)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "init %d", i)
	}
	cached, err := filepath.Glob(filepath.Join(r.stateDir, "plugin-cache", "registry.terraform.io/hashicorp/time/*/linux_amd64/terraform-provider-time*"))
	require.NoError(t, err)
	assert.Len(t, cached, 1, "one package in the default cache (<state dir>/plugin-cache)")
	for i := range n {
		ws := Workspace{Tenant: "acme", Name: "w" + string(rune('a'+i))}
		p, err := r.Plan(ctx, ws, "p", false)
		require.NoError(t, err, "every workspace's providers work")
		assert.Equal(t, 1, p.Summary.Add)
	}
}

// Without a lock file in the stack, the first init at a revision is recorded and every other
// worker initialises that revision with its versions, though the mirror has a newer one since;
// a later revision keeps them too. A worker without the record would have taken the newer one.
func TestRecordedLockFileGivesEveryWorkerTheSameVersions(t *testing.T) {
	m := timeMirror(t)
	shared := localPlans{dir: t.TempDir()}
	ctx := context.Background()
	worker := func() *Runner { return newRunner(t, WithProviderMirror(m.Dir), WithPlanStore(shared)) }
	ws := Workspace{Tenant: "acme", Name: "web", Revision: "1111111111111111111111111111111111111111"}

	a := worker()
	ready(t, a, ws, timeConfig)
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, a, ws))
	rec, err := shared.RecordedLock(ctx, ws, ws.Revision)
	require.NoError(t, err)
	require.NotNil(t, rec, "the first init's lock file is recorded at the revision")

	addVersion(t, m, "0.99.0")
	b := worker() // an empty disk
	ready(t, b, ws, timeConfig)
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, b, ws), "the recorded versions, enforced")
	assert.Equal(t, readonlyMode(t, b, ws), lockReadonly)

	next := ws
	next.Revision = "2222222222222222222222222222222222222222"
	c := worker()
	ready(t, c, next, timeConfig)
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, c, next), "a new revision starts from the recorded versions")

	// A revision whose constraint excludes the recorded version chooses afresh, and records that.
	pinned := ws
	pinned.Revision = "3333333333333333333333333333333333333333"
	d := worker()
	ready(t, d, pinned, map[string][]byte{"main.tf": []byte(strings.Replace(string(timeConfig["main.tf"]),
		`source = "hashicorp/time"`, `source = "hashicorp/time", version = "0.99.0"`, 1))})
	assert.Equal(t, "0.99.0", lockedVersion(t, d, pinned))
	rec3, err := shared.RecordedLock(ctx, pinned, pinned.Revision)
	require.NoError(t, err)
	assert.Contains(t, string(rec3), `version     = "0.99.0"`)

	control := newRunner(t, WithProviderMirror(m.Dir)) // its own store: nothing recorded
	ready(t, control, ws, timeConfig)
	assert.Equal(t, "0.99.0", lockedVersion(t, control, ws), "without the record init takes the newest")
}

func readonlyMode(t *testing.T, r *Runner, ws Workspace) string {
	t.Helper()
	return r.lockMode(ws)
}

// A stack's lock file is enforced with -lockfile=readonly: a provider package swapped in the
// mirror (its hash no longer the locked one) is refused by init, and by slipway's check first.
func TestShippedLockFileIsEnforced(t *testing.T) {
	m := timeMirror(t)
	ctx := context.Background()
	r := newRunner(t, WithProviderMirror(m.Dir))
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, timeConfig)
	lock, err := os.ReadFile(filepath.Join(r.Dir(ws), depLockFile))
	require.NoError(t, err)

	shipped := map[string][]byte{"main.tf": timeConfig["main.tf"], depLockFile: lock}
	fresh := newRunner(t, WithProviderMirror(m.Dir))
	ready(t, fresh, ws, shipped)
	assert.Equal(t, lockReadonly, fresh.lockMode(ws))

	// The attack: the mirror's package is replaced by another binary.
	pkg := filepath.Join(m.Dir, "registry.terraform.io/hashicorp/time", tfmirror.TimeVersion, "linux_amd64",
		"terraform-provider-time_v"+tfmirror.TimeVersion)
	require.NoError(t, os.WriteFile(pkg, []byte("#!/bin/sh\necho swapped\n"), 0o755))
	err = CheckLockFile(m.Dir, "terraform/"+depLockFile, lock)
	var le *LockFileError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "registry.terraform.io/hashicorp/time", le.Provider)
	assert.Contains(t, err.Error(), "which the lock file does not list")

	victim := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(filepath.Join(t.TempDir(), "cold")))
	require.NoError(t, victim.Prepare(ctx, ws, shipped))
	err = victim.Init(ctx, ws)
	require.Error(t, err, "init refuses the swapped package")
	assert.Contains(t, err.Error(), "lock file")
	_, statErr := os.Stat(filepath.Join(victim.Dir(ws), ".terraform", "providers"))
	assert.True(t, os.IsNotExist(statErr), "nothing installed")
	b, _ := os.ReadFile(filepath.Join(victim.Dir(ws), depLockFile))
	assert.Equal(t, string(lock), string(b), "the lock file is untouched")
}

// A lock file pinning a version the mirror lacks is refused, naming the file, the provider and
// what the mirror has.
func TestCheckLockFileNamesWhatIsMissing(t *testing.T) {
	m := timeMirror(t)
	lock := []byte(`provider "registry.terraform.io/hashicorp/time" {
  version     = "0.13.0"
  constraints = "0.13.0"
  hashes = ["h1:AAAA"]
}
`)
	err := CheckLockFile(m.Dir, "terraform/.terraform.lock.hcl", lock)
	var le *LockFileError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, `terraform/.terraform.lock.hcl: provider "registry.terraform.io/hashicorp/time" version 0.13.0 for linux_amd64 is not in the provider mirror `+
		m.Dir+` (SLIPWAY_PROVIDER_MIRROR); it has version(s) `+tfmirror.TimeVersion, err.Error())
	err = CheckLockFile(m.Dir, "terraform/.terraform.lock.hcl", []byte("provider {"))
	require.ErrorAs(t, err, &le)
	assert.Contains(t, err.Error(), "is not a lock file")
}

// Bad mirror settings stop the runner naming the setting.
func TestProviderSettingsRefused(t *testing.T) {
	bin := requireTerraform(t)
	for _, tc := range []struct {
		opt  Option
		want string
	}{
		{WithProviderMirror("relative/dir"), EnvProviderMirror},
		{WithProviderMirror("http://mirror.example/"), "https://"},
		{WithProviderMirror(filepath.Join(t.TempDir(), "missing")), "is not a directory"},
		{WithPluginCache("cache"), EnvPluginCache},
	} {
		_, err := New(t.TempDir(), WithBinary(bin), tc.opt)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// -lockfile=readonly: a configuration that needs a provider the shipped lock file does not
// name is refused, where terraform's plain init would quietly add it.
func TestReadonlyRefusesAProviderTheLockLacks(t *testing.T) {
	p := tfmirror.Time()
	m := timeMirror(t)
	_, err := tfmirror.Write(filepath.Dir(m.Dir), p, tfmirror.Provider{Source: "hashicorp/clock", Version: "1.0.0", Binary: p.Binary})
	require.NoError(t, err)
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	r := newRunner(t, WithProviderMirror(m.Dir))
	ready(t, r, ws, timeConfig)
	lock, err := os.ReadFile(filepath.Join(r.Dir(ws), depLockFile))
	require.NoError(t, err)

	both := []byte(`
terraform {
  required_providers {
    time  = { source = "hashicorp/time" }
    clock = { source = "hashicorp/clock" }
  }
}
`)
	plain := newRunner(t, WithProviderMirror(m.Dir))
	ready(t, plain, ws, map[string][]byte{"main.tf": both})

	strict := newRunner(t, WithProviderMirror(m.Dir))
	require.NoError(t, strict.Prepare(ctx, ws, map[string][]byte{"main.tf": both, depLockFile: lock}))
	err = strict.Init(ctx, ws)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Provider dependency changes detected")
	b, _ := os.ReadFile(filepath.Join(strict.Dir(ws), depLockFile))
	assert.Equal(t, string(lock), string(b), "the lock file is untouched")
}

// Two worker processes pointed at one plugin cache (a shared volume) take turns through its
// flock: their concurrent cold inits all succeed and leave one package.
func TestRunnersSharingACacheTakeTurns(t *testing.T) {
	m := timeMirror(t)
	cache := filepath.Join(t.TempDir(), "shared")
	a := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(cache))
	b := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(cache))
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		r := a
		if i%2 == 1 {
			r = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := Workspace{Tenant: "acme", Name: "s" + string(rune('a'+i))}
			if errs[i] = r.Prepare(ctx, ws, timeConfig); errs[i] == nil {
				errs[i] = r.Init(ctx, ws)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "init %d", i)
	}
	cached, err := filepath.Glob(filepath.Join(cache, "registry.terraform.io/hashicorp/time/*/linux_amd64/*"))
	require.NoError(t, err)
	assert.Len(t, cached, 1)
	// While one holds the cache, the other's init waits, and gives up when its context ends.
	unlock, err := lockDir(ctx, cache)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	ws := Workspace{Tenant: "acme", Name: "waiting"}
	require.NoError(t, b.Prepare(ctx, ws, timeConfig))
	err = b.Init(short, ws)
	unlock()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, b.Init(ctx, ws), "the cache free again")
}

// In the bubblewrap sandbox terraform still reaches the mirror (bound read-only) and the cache.
func TestSandboxedTerraformInstallsFromTheMirror(t *testing.T) {
	bwrap := requireBwrap(t)
	m := timeMirror(t)
	r := newRunner(t, WithSandbox(bwrap), WithProviderMirror(m.Dir), WithPluginCache(filepath.Join(t.TempDir(), "cache")))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, timeConfig)
	p, err := r.Plan(ctx, ws, "p1", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	out, err := r.Outputs(ctx, ws)
	require.NoError(t, err)
	assert.NotEmpty(t, out["born"])
}

// Two workers' first inits of one revision race: the one that records second throws its own
// choice away (here a newer version its mirror has) and initialises again with the recorded one.
func TestRacingFirstInitsAgreeOnTheRecordedLock(t *testing.T) {
	old := timeMirror(t)
	newer := timeMirror(t, "0.99.0")
	shared := localPlans{dir: t.TempDir()}
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web", Revision: "4444444444444444444444444444444444444444"}
	a := newRunner(t, WithProviderMirror(old.Dir), WithPlanStore(shared))
	b := newRunner(t, WithProviderMirror(newer.Dir), WithPlanStore(shared))
	require.NoError(t, b.Prepare(ctx, ws, timeConfig)) // nothing recorded yet: b will record
	assert.Equal(t, lockRecord+ws.Revision, b.lockMode(ws))
	ready(t, a, ws, timeConfig) // a records first
	require.NoError(t, b.Init(ctx, ws))
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, b, ws), "b took a's recorded versions over the newer one")
	assert.Equal(t, lockReadonly, b.lockMode(ws))
	_, err := os.Stat(filepath.Join(b.Dir(ws), ".terraform/providers/registry.terraform.io/hashicorp/time", tfmirror.TimeVersion))
	require.NoError(t, err, "and installed them")
}

// Only inits that may install a provider take the cache's turn: a configuration of built-ins
// initialises while another init holds the cache.
func TestBuiltinOnlyInitsDoNotWaitForTheCache(t *testing.T) {
	dir := t.TempDir()
	write := func(files map[string][]byte) string {
		d, err := os.MkdirTemp(dir, "cfg")
		require.NoError(t, err)
		for p, b := range files {
			require.NoError(t, os.MkdirAll(filepath.Join(d, filepath.Dir(p)), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(d, p), b, 0o600))
		}
		return d
	}
	assert.False(t, needsProviders(write(twoResources("x"))), "terraform_data and a local module")
	assert.True(t, needsProviders(write(timeConfig)))
	assert.True(t, needsProviders(write(map[string][]byte{"main.tf": []byte(`resource "random_id" "x" {}`)})))
	assert.True(t, needsProviders(write(map[string][]byte{"main.tf": []byte("module \"m\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\n")})))
	assert.True(t, needsProviders(write(map[string][]byte{"main.tf.json": []byte(`{}`)})))

	r := newRunner(t)
	ctx := context.Background()
	release, err := r.initGate(ctx)
	require.NoError(t, err)
	defer release()
	short, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ws := Workspace{Tenant: "acme", Name: "builtin"}
	require.NoError(t, r.Prepare(short, ws, twoResources("x")))
	require.NoError(t, r.Init(short, ws), "not held up by the cache's holder")
}

// A network mirror (https://) serves the provider as terraform's provider network mirror
// protocol says; terraform trusts its private CA through SSL_CERT_FILE.
func TestProviderFromNetworkMirror(t *testing.T) {
	p := tfmirror.Time()
	bin, err := os.ReadFile(p.Binary)
	if err != nil {
		timeMirror(t) // skips or fails as the other tests do
	}
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	hdr := &zip.FileHeader{Name: "terraform-provider-time_v" + p.Version, Method: zip.Deflate}
	hdr.SetMode(0o755)
	f, err := zw.CreateHeader(hdr)
	require.NoError(t, err)
	_, err = f.Write(bin)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	base := "/providers/registry.terraform.io/hashicorp/time/"
	archive := fmt.Sprintf("terraform-provider-time_%s_linux_amd64.zip", p.Version)
	var served []string
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		served = append(served, req.URL.Path)
		mu.Unlock()
		if strings.HasSuffix(req.URL.Path, ".json") {
			w.Header().Set("Content-Type", "application/json")
		}
		switch req.URL.Path {
		case base + "index.json":
			fmt.Fprintf(w, `{"versions":{%q:{}}}`, p.Version)
		case base + p.Version + ".json":
			fmt.Fprintf(w, `{"archives":{"linux_amd64":{"url":%q}}}`, archive)
		case base + archive:
			_, _ = w.Write(zipped.Bytes())
		default:
			http.NotFound(w, req)
		}
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	t.Setenv("SSL_CERT_FILE", ca)

	r := newRunner(t, WithProviderMirror(srv.URL+"/providers/"))
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, r, ws, timeConfig)
	plan, err := r.Plan(ctx, ws, "p", false)
	require.NoError(t, err)
	assert.Equal(t, 1, plan.Summary.Add)
	assert.Contains(t, served, base+archive, "installed from the network mirror")
	assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, r, ws))
}

// A lock file changed since the last init (a stack shipping a new one) makes the working
// directory uninitialised, so the steps that skip init on an initialised host run it again.
func TestChangedLockFileNeedsInitAgain(t *testing.T) {
	m := timeMirror(t, "0.99.0")
	ctx := context.Background()
	r := newRunner(t, WithProviderMirror(m.Dir))
	ws := Workspace{Tenant: "acme", Name: "web"}
	pinned := func(v string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(strings.Replace(string(timeConfig["main.tf"]),
			`source = "hashicorp/time"`, `source = "hashicorp/time", version = "`+v+`"`, 1))}
	}
	other := Workspace{Tenant: "acme", Name: "other"}
	ready(t, r, other, pinned("0.99.0"))
	newLock, err := os.ReadFile(filepath.Join(r.Dir(other), depLockFile))
	require.NoError(t, err)
	ready(t, r, ws, pinned(tfmirror.TimeVersion))
	assert.True(t, r.Initialized(ws))
	files := pinned("0.99.0")
	files[depLockFile] = newLock
	require.NoError(t, r.Prepare(ctx, ws, files))
	assert.False(t, r.Initialized(ws), "the lock file changed under the installed providers")
	require.NoError(t, r.Init(ctx, ws))
	assert.True(t, r.Initialized(ws))
	_, err = r.Plan(ctx, ws, "p", false)
	require.NoError(t, err)
}

// cachedPackage is the inode and modification time of the cache's entry for hashicorp/time:
// the link to the mirror's directory (unpacked), or the unzipped binary (packed).
func cachedPackage(t *testing.T, cache string, packed bool) string {
	t.Helper()
	p := filepath.Join(cache, "registry.terraform.io/hashicorp/time", tfmirror.TimeVersion, "linux_amd64")
	if packed {
		p = filepath.Join(p, "terraform-provider-time_v"+tfmirror.TimeVersion)
	}
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	return fmt.Sprintf("inode %d, modified %s", fi.Sys().(*syscall.Stat_t).Ino, fi.ModTime().Format(time.RFC3339Nano))
}

// A first init with no lock file links the provider the cache holds and leaves it in place:
// terraform reinstalled it (a removed link, or a binary truncated and rewritten) under every
// other workspace's running plan, which then failed with "no such file or directory".
func TestFirstInitLeavesTheCachedPackageInPlace(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unpacked mirror", true: "packed mirror"}[packed], func(t *testing.T) {
			p := tfmirror.Time()
			if _, err := os.Stat(p.Binary); err != nil {
				timeMirror(t) // skips, or fails under CI, naming the build
			}
			m, err := tfmirror.Write(t.TempDir(), p)
			if packed {
				m, err = tfmirror.WritePacked(t.TempDir(), p)
			}
			require.NoError(t, err)
			cache := filepath.Join(t.TempDir(), "cache")
			r := newRunner(t, WithProviderMirror(m.Dir), WithPluginCache(cache))
			ready(t, r, Workspace{Tenant: "acme", Name: "first"}, timeConfig)
			before := cachedPackage(t, cache, packed)
			time.Sleep(10 * time.Millisecond) // a rewrite would show in the modification time
			for _, name := range []string{"second", "third"} {
				ws := Workspace{Tenant: "acme", Name: name}
				ready(t, r, ws, timeConfig)
				assert.Equal(t, before, cachedPackage(t, cache, packed), "%s's init left the cached package as it was", name)
				link, err := os.Readlink(filepath.Join(r.Dir(ws), ".terraform/providers/registry.terraform.io/hashicorp/time", tfmirror.TimeVersion, "linux_amd64"))
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(link, cache), "%s links the cached package: %s", name, link)
				assert.Equal(t, tfmirror.TimeVersion, lockedVersion(t, r, ws))
			}
		})
	}
}

// A stack's lock file whose checksums are not the cached package's (the mirror's package was
// rebuilt since the cache took it) installs a private copy verified against the mirror, and the
// shared cache is not rewritten under the other workspaces' running commands.
func TestLockFileNotMatchingTheCacheInstallsAPrivateCopy(t *testing.T) {
	p := tfmirror.Time()
	if _, err := os.Stat(p.Binary); err != nil {
		timeMirror(t)
	}
	old, err := tfmirror.WritePacked(t.TempDir(), p)
	require.NoError(t, err)
	cache := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()
	ready(t, newRunner(t, WithProviderMirror(old.Dir), WithPluginCache(cache)), Workspace{Tenant: "acme", Name: "first"}, timeConfig)
	before := cachedPackage(t, cache, true)

	// The rebuilt package (trailing bytes do not stop an ELF binary) and a lock file made from it.
	bin, err := os.ReadFile(p.Binary)
	require.NoError(t, err)
	p.Binary = filepath.Join(t.TempDir(), "terraform-provider-time")
	require.NoError(t, os.WriteFile(p.Binary, append(bin, "rebuilt"...), 0o755))
	rebuilt, err := tfmirror.WritePacked(t.TempDir(), p)
	require.NoError(t, err)
	elsewhere := newRunner(t, WithProviderMirror(rebuilt.Dir), WithPluginCache(filepath.Join(t.TempDir(), "cache")))
	ws := Workspace{Tenant: "acme", Name: "web"}
	ready(t, elsewhere, ws, timeConfig)
	lock, err := os.ReadFile(filepath.Join(elsewhere.Dir(ws), depLockFile))
	require.NoError(t, err)

	time.Sleep(10 * time.Millisecond) // a rewrite would show in the modification time
	r := newRunner(t, WithProviderMirror(rebuilt.Dir), WithPluginCache(cache))
	require.NoError(t, r.Prepare(ctx, ws, map[string][]byte{"main.tf": timeConfig["main.tf"], depLockFile: lock}))
	require.NoError(t, r.Init(ctx, ws))
	assert.Equal(t, before, cachedPackage(t, cache, true), "the cached package was not rewritten")
	fi, err := os.Lstat(filepath.Join(r.Dir(ws), ".terraform/providers/registry.terraform.io/hashicorp/time", p.Version, "linux_amd64"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "a private copy, not a link into the cache")
	plan, err := r.Plan(ctx, ws, "p", false)
	require.NoError(t, err)
	assert.Equal(t, 1, plan.Summary.Add)
}
