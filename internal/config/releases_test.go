package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestParseStackRef(t *testing.T) {
	for _, c := range []struct {
		in, name, release, err string
	}{
		{in: "web", name: "web"},
		{in: "web@1.5.0", name: "web", release: "1.5.0"},
		{in: "web@2.0.0-rc.1", name: "web", release: "2.0.0-rc.1"},
		{in: "web@stable", name: "web", release: "stable"},
		{in: "", err: "is required"},
		{in: "@1.0.0", err: "is required"},
		{in: "Web@1.0.0", err: `"Web" must be a DNS-1123 label`},
		{in: "../x@1.0.0", err: `"../x" must be a DNS-1123 label`},
		{in: "web@1.5", err: "after @ comes a release version"},
		{in: "web@", err: "after @ comes a release version"},
		{in: "web@1.0.0@2", err: "after @ comes a release version"},
	} {
		name, release, err := ParseStackRef(c.in)
		if c.err != "" {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Errors[0].Field != "stack" || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseStackRef(%q) = %v; want an error on field stack with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || name != c.name || release != c.release {
			t.Errorf("ParseStackRef(%q) = %q, %q, %v; want %q, %q", c.in, name, release, err, c.name, c.release)
		}
	}
}

func TestInstanceFileAcceptsAPinnedStack(t *testing.T) {
	inst, err := ParseInstance([]byte("stack: web@1.5.0\nparameters: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if inst.StackName() != "web" || inst.Release() != "1.5.0" {
		t.Fatalf("StackName, Release = %q, %q; want web, 1.5.0", inst.StackName(), inst.Release())
	}
	if got := string(inst.Canonical()); !strings.HasPrefix(got, "stack: web@1.5.0\n") {
		t.Fatalf("canonical form drops the pin:\n%s", got)
	}
	if _, err := ParseInstance([]byte("stack: web@1.x\n")); err == nil || !strings.Contains(err.Error(), "stack") || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a bad pin: %v; want an error naming stack and its line", err)
	}
}

func TestRenderKeepsThePinAndRepinningIsNotAChangeOfStack(t *testing.T) {
	st := &Stack{Name: "web", Schema: &Schema{}, Files: map[string][]byte{}}
	pinned := &Instance{Stack: "web@1.1.0", Parameters: map[string]any{}}
	files, err := Render(contract.Ref{Tenant: "acme", Name: "shop"}, "acme-shop", st, pinned)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(files[InstanceFile]), "stack: web@1.1.0\n") {
		t.Fatalf("the rendered instance file lost its pin:\n%s", files[InstanceFile])
	}
	if _, err := Validate(st, pinned, &Instance{Stack: "web@1.0.0"}); err != nil {
		t.Fatalf("re-pinning 1.0.0 → 1.1.0 is refused: %v", err)
	}
	if _, err := Validate(st, pinned, &Instance{Stack: "api@1.0.0"}); err == nil {
		t.Fatal("a change of stack through a pin is accepted")
	}
}

func TestReleasesFile(t *testing.T) {
	r, err := ParseReleases("web", nil)
	if err != nil || len(r.Releases) != 0 {
		t.Fatalf("no file: %v, %v", r, err)
	}
	if _, err := r.Resolve("stack", "1.0.0"); err == nil || !strings.Contains(err.Error(), "has no releases") {
		t.Fatalf("resolve with no releases: %v", err)
	}
	for _, v := range []string{"1.0.0", "1.1.0"} {
		if err := r.Add(contract.StackRelease{Version: v, Commit: strings.Repeat("a", 40), Tree: "sha256:x", Notes: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ v, field, want string }{
		{"1.1.0", "version", "exists already"},
		{"1.2", "version", "not a release version"},
	} {
		var ve *ValidationError
		if err := r.Add(contract.StackRelease{Version: c.v}); !errors.As(err, &ve) || ve.Errors[0].Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%s) = %v; want %s: %s", c.v, err, c.field, c.want)
		}
	}
	if err := r.SetChannel("stable", "1.0.0", true); err != nil {
		t.Fatal(err)
	}
	if err := r.SetChannel("dev", ChannelHead, false); err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if err := r.SetChannel("stable", "9.9.9", false); !errors.As(err, &ve) || ve.Errors[0].Field != "release" || !strings.Contains(err.Error(), "releases: 1.0.0, 1.1.0") {
		t.Fatalf("a channel on an unknown release: %v", err)
	}
	if err := r.SetChannel("1.0.0", "1.0.0", false); err == nil {
		t.Fatal("a channel named like a version is accepted")
	}

	back, err := ParseReleases("web", r.Encode())
	if err != nil {
		t.Fatalf("%v\n%s", err, r.Encode())
	}
	if string(back.Encode()) != string(r.Encode()) {
		t.Fatalf("not stable through a round trip:\n%s\n%s", r.Encode(), back.Encode())
	}
	if rel, err := back.Resolve("stack", "stable"); err != nil || rel.Version != "1.0.0" || rel.Stack != "web" || rel.Ref() != "web@1.0.0" {
		t.Fatalf("stable = %+v, %v", rel, err)
	}
	if rel, err := back.Resolve("stack", "dev"); err != nil || rel.Commit != "" || rel.Ref() != "" {
		t.Fatalf("dev (head) = %+v, %v; want main's head", rel, err)
	}
	if _, err := back.Resolve("--to", "2.0.0"); !errors.As(err, &ve) || ve.Errors[0].Field != "--to" ||
		!strings.Contains(err.Error(), "unknown release web@2.0.0") || !strings.Contains(err.Error(), "channels: dev=head, stable=1.0.0") {
		t.Fatalf("unknown release: %v", err)
	}
	if back.Default != "stable" {
		t.Fatalf("default channel = %q", back.Default)
	}
	if _, err := ParseReleases("api", r.Encode()); err == nil {
		t.Fatal("a releases file of another stack is accepted")
	}
	if _, err := ParseReleases("web", []byte("stack: web\nreleasez: []\n")); err == nil || !strings.Contains(err.Error(), "releasez") {
		t.Fatalf("an unknown key: %v", err)
	}
}

func TestTreeHashRefusesChangedReleaseFiles(t *testing.T) {
	files := map[string][]byte{"schema.yaml": []byte("parameters: []\n"), "manifests/cm.yaml.tmpl": []byte("a")}
	rel := contract.StackRelease{Stack: "web", Version: "1.0.0", Commit: strings.Repeat("b", 40), Tree: TreeHash(files)}
	if err := VerifyRelease(rel, files); err != nil {
		t.Fatal(err)
	}
	for name, changed := range map[string]map[string][]byte{
		"edited":  {"schema.yaml": []byte("parameters: []\n"), "manifests/cm.yaml.tmpl": []byte("b")},
		"added":   {"schema.yaml": []byte("parameters: []\n"), "manifests/cm.yaml.tmpl": []byte("a"), "terraform/x.tf": nil},
		"removed": {"schema.yaml": []byte("parameters: []\n")},
		// The length prefix keeps a byte moved from one file's end to the next path from hashing alike.
		"moved": {"schema.yaml": []byte("parameters: []\nm"), "anifests/cm.yaml.tmpl": []byte("a")},
	} {
		if err := VerifyRelease(rel, changed); err == nil || !strings.Contains(err.Error(), "release web@1.0.0") {
			t.Errorf("%s: %v; want a refusal naming the release", name, err)
		}
	}
}

// A deadline names a release of the stack and a time after now (else the flag is named), replaces
// the one for the same release, and survives the file's encoding.
func TestReleasesFileKeepsDeadlines(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	r, _ := ParseReleases("web", nil)
	if err := r.Add(contract.StackRelease{Version: "1.5.0", Commit: strings.Repeat("a", 40), Tree: "sha256:x"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d     contract.StackDeadline
		field string
	}{
		{contract.StackDeadline{Min: "1.6.0", By: now.Add(time.Hour)}, "--min"},
		{contract.StackDeadline{Min: "1.5.0", By: now}, "--by"},
	} {
		var ve *ValidationError
		if err := r.SetDeadline(c.d, now); !errors.As(err, &ve) || ve.Errors[0].Field != c.field {
			t.Errorf("SetDeadline(%+v) = %v; want a %s error", c.d, err, c.field)
		}
	}
	wave := contract.DeadlineWave{At: now.Add(10 * time.Hour), Tenant: "acme", Instances: []string{"acme/db"}}
	for _, by := range []time.Time{now.Add(24 * time.Hour), now.Add(48 * time.Hour)} {
		if err := r.SetDeadline(contract.StackDeadline{Min: "1.5.0", By: by, Waves: []contract.DeadlineWave{wave}}, now); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ParseReleases("web", r.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Deadlines) != 1 || !back.Deadlines[0].By.Equal(now.Add(48*time.Hour)) || back.Deadlines[0].Waves[0].Instances[0] != "acme/db" {
		t.Fatalf("deadlines after a round trip: %+v", back.Deadlines)
	}
}

// A release's repo (the stacks repository it was cut from) is in the file and under the seal; a
// file written before it existed has no repo: key, so its bytes, and the seal over them, are unchanged.
func TestReleasesFileRecordsTheStacksRepository(t *testing.T) {
	const old = "stack: web\nreleases:\n  - version: 1.0.0\n    commit: abc\n    tree: sha256:00\n"
	r, err := ParseReleases("web", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Encode()); got != old {
		t.Errorf("a file without repo re-encodes as\n%s\nnot\n%s", got, old)
	}
	sealed := string(r.Sealed())
	r.Releases[0].Repo = "file:///srv/stacks.git"
	if !strings.Contains(string(r.Encode()), "    repo: file:///srv/stacks.git\n") {
		t.Errorf("repo not written:\n%s", r.Encode())
	}
	if string(r.Sealed()) == sealed {
		t.Error("the seal does not cover repo")
	}
	back, err := ParseReleases("web", r.Encode())
	if err != nil || back.Releases[0].Repo != "file:///srv/stacks.git" {
		t.Errorf("repo not read back: %+v, %v", back, err)
	}
}
