package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
)

// ReleasesFile holds a stack's releases and channels, in its directory ReleasesDir(name).
const ReleasesFile = "releases.yaml"

// ChannelHead is the channel value that means main's head: an unpinned stack, for a dev channel.
const ChannelHead = "head"

// ReleasesDir is where slipway keeps a stack's releases file: beside the stacks, not in stacks/<name>/,
// so recording a release never changes the files the release covers.
func ReleasesDir(name string) string { return "releases/" + name }

// Releases is a stack's releases file: every release cut (oldest first, never edited), the
// channels (name → version, or head) and the channel its unpinned instances render.
type Releases struct {
	Stack   string `yaml:"stack"`
	Default string `yaml:"default,omitempty"`
	// Generation counts slipway's writes of the file (0: a file written before it was counted).
	// The seal covers it, and the worker records the newest it saw where only slipway writes, so a
	// sealed file restored from the file's history is told apart from slipway's latest.
	Generation int                     `yaml:"generation,omitempty"`
	Releases   []contract.StackRelease `yaml:"releases"`
	Channels   map[string]string       `yaml:"channels,omitempty"`
	// Deadlines are the upgrade deadlines set (slipway stack deadline), one per minimum release.
	Deadlines []contract.StackDeadline `yaml:"deadlines,omitempty"`
	// Seal is slipway's MAC of the rest of the file (attest.Keyring.Seal over Sealed): the file is
	// on main, where a tenant's commit can write too, so only a sealed file is slipway's.
	Seal string `yaml:"seal,omitempty"`
}

// ParseReleases reads a stack's releases file strictly; empty data is a stack with no releases.
func ParseReleases(name string, data []byte) (*Releases, error) {
	r := &Releases{Stack: name}
	if len(bytes.TrimSpace(data)) == 0 {
		return r, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(r); err != nil {
		return nil, fieldErr(ReleasesDir(name)+"/"+ReleasesFile, "%v", err)
	}
	if r.Stack != name {
		return nil, fieldErr(ReleasesDir(name)+"/"+ReleasesFile, "names stack %q, not %q", r.Stack, name)
	}
	for i := range r.Releases {
		r.Releases[i].Stack = name
	}
	return r, nil
}

// Encode is the file's bytes (yaml sorts the channels: equal files give equal bytes).
func (r *Releases) Encode() []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	_ = enc.Encode(r) // a struct of strings and times always encodes
	_ = enc.Close()
	return buf.Bytes()
}

// Sealed is what Seal covers: the file's bytes without its seal, after a fixed prefix that keeps
// the MAC from meaning anything else under the same key.
func (r *Releases) Sealed() []byte {
	c := *r
	c.Seal = ""
	return append([]byte("slipway releases file\n"), c.Encode()...)
}

// Find is the release of that version.
func (r *Releases) Find(version string) (contract.StackRelease, bool) {
	for _, rel := range r.Releases {
		if rel.Version == version {
			return rel, true
		}
	}
	return contract.StackRelease{}, false
}

// Resolve turns a version or a channel into its release; a channel on head gives a release with
// no commit (main's head). An unknown one is a *ValidationError on field naming it and listing the known ones.
func (r *Releases) Resolve(field, release string) (contract.StackRelease, error) {
	if rel, ok := r.Find(release); ok {
		return rel, nil
	}
	if v, ok := r.Channels[release]; ok {
		if v == ChannelHead {
			return contract.StackRelease{Stack: r.Stack, Version: ChannelHead}, nil
		}
		if rel, ok := r.Find(v); ok {
			return rel, nil
		}
	}
	return contract.StackRelease{}, fieldErr(field, "unknown release %s@%s; %s", r.Stack, release, r.known())
}

// known lists the releases and channels, for an error.
func (r *Releases) known() string {
	if len(r.Releases) == 0 {
		return fmt.Sprintf("stack %s has no releases (slipway stack release %s VERSION cuts one)", r.Stack, r.Stack)
	}
	var vs, cs []string
	for _, rel := range r.Releases {
		vs = append(vs, rel.Version)
	}
	for _, c := range sortedKeys(r.Channels) {
		cs = append(cs, c+"="+r.Channels[c])
	}
	s := "releases: " + strings.Join(vs, ", ")
	if len(cs) > 0 {
		s += "; channels: " + strings.Join(cs, ", ")
	}
	return s
}

// Add appends a new release: its version must be semver and not cut before.
func (r *Releases) Add(rel contract.StackRelease) error {
	switch {
	case !IsVersion(rel.Version):
		return fieldErr("version", "%q is not a release version MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", rel.Version)
	case slices.ContainsFunc(r.Releases, func(o contract.StackRelease) bool { return o.Version == rel.Version }):
		return fieldErr("version", "release %s@%s exists already: a release never changes; cut a new version", r.Stack, rel.Version)
	}
	rel.Stack = r.Stack
	r.Releases = append(r.Releases, rel)
	return nil
}

// SetChannel points channel at a release (or head); makeDefault makes it the unpinned instances' channel.
func (r *Releases) SetChannel(channel, version string, makeDefault bool) error {
	if !names.IsLabel(channel) || IsVersion(channel) {
		return fieldErr("channel", "%q: a channel's name %s and is not a version", channel, names.LabelRule)
	}
	if _, ok := r.Find(version); !ok && version != ChannelHead {
		return fieldErr("release", "unknown release %s@%s; %s", r.Stack, version, r.known())
	}
	if r.Channels == nil {
		r.Channels = map[string]string{}
	}
	r.Channels[channel] = version
	if makeDefault {
		r.Default = channel
	}
	return nil
}

// SetDeadline records an upgrade deadline: Min must be a release of the stack and By after now. A
// deadline for the same Min replaces the earlier one.
func (r *Releases) SetDeadline(d contract.StackDeadline, now time.Time) error {
	if _, ok := r.Find(d.Min); !ok {
		return fieldErr("--min", "unknown release %s@%s; %s", r.Stack, d.Min, r.known())
	}
	if !d.By.After(now) {
		return fieldErr("--by", "%s is not in the future", d.By.Format(time.RFC3339))
	}
	r.Deadlines = slices.DeleteFunc(r.Deadlines, func(o contract.StackDeadline) bool { return o.Min == d.Min })
	r.Deadlines = append(r.Deadlines, d)
	return nil
}

// TreeHash is the hash of a stack directory's files as a forge's ReadDir returns them: SHA-256
// over each path and its bytes, in path order. It is forge-neutral (not git's tree hash), so
// every backend and a mirror compute it alike.
func TreeHash(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range sortedKeys(files) {
		h.Write([]byte(p + "\x00" + strconv.Itoa(len(files[p])) + "\x00"))
		h.Write(files[p])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// VerifyRelease refuses files of a release whose hash is not the one recorded when it was cut:
// the commit was rewritten, or a mirror serves other bytes.
func VerifyRelease(rel contract.StackRelease, files map[string][]byte) error {
	if got := TreeHash(files); got != rel.Tree {
		return fieldErr("stack", "release %s@%s: the files of %s at %.12s hash to %s, not the %s recorded when it was cut (history rewritten?); refusing to render them",
			rel.Stack, rel.Version, StackDir(rel.Stack), rel.Commit, got, rel.Tree)
	}
	return nil
}
