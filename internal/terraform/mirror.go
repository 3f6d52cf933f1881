package terraform

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// LockFileError is a stack's lock file that the provider mirror cannot satisfy: a provider,
// version or package the mirror does not have. It is bad input, refused before anything runs.
type LockFileError struct {
	// File is the lock file's path in the stack, e.g. terraform/.terraform.lock.hcl.
	File     string
	Provider string
	Reason   string
}

func (e *LockFileError) Error() string {
	if e.Provider == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: provider %q %s", e.File, e.Provider, e.Reason)
}

var lockSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "provider", LabelNames: []string{"source"}}}}

var providerSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "version", Required: true}, {Name: "constraints"}, {Name: "hashes"}}}

// CheckLockFile checks every provider the lock file pins against the filesystem mirror at
// mirrorDir: that it offers that version for this platform, and that its package's hash is
// one the lock file lists. file names the lock file in errors.
func CheckLockFile(mirrorDir, file string, lock []byte) error {
	bad := func(provider, format string, args ...any) error {
		return &LockFileError{File: file, Provider: provider, Reason: fmt.Sprintf(format, args...)}
	}
	f, diags := hclsyntax.ParseConfig(lock, file, hcl.InitialPos)
	if diags.HasErrors() {
		return bad("", "is not a lock file: %s", diags.Error())
	}
	content, diags := f.Body.Content(lockSchema)
	if diags.HasErrors() {
		return bad("", "is not a lock file: %s", diags.Error())
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	for _, b := range content.Blocks {
		source := b.Labels[0]
		attrs, diags := b.Body.Content(providerSchema)
		if diags.HasErrors() {
			return bad(source, "is not a lock file entry: %s", diags.Error())
		}
		version, err := stringAttr(attrs.Attributes["version"])
		if err != nil {
			return bad(source, "version: %v", err)
		}
		var hashes []string
		if a := attrs.Attributes["hashes"]; a != nil {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || !v.Type().IsTupleType() && !v.Type().IsListType() {
				return bad(source, "hashes: must be a list of strings")
			}
			for it := v.ElementIterator(); it.Next(); {
				_, h := it.Element()
				if h.Type() != cty.String || h.IsNull() {
					return bad(source, "hashes: must be a list of strings")
				}
				hashes = append(hashes, h.AsString())
			}
		}
		parts := strings.Split(source, "/")
		if len(parts) != 3 || slices.Contains(parts, "") || slices.Contains(parts, "..") || slices.Contains(parts, ".") {
			return bad(source, "is not a provider address (HOST/NAMESPACE/TYPE)")
		}
		base := filepath.Join(mirrorDir, parts[0], parts[1], parts[2])
		unpacked := filepath.Join(base, version, platform)
		packed := filepath.Join(base, fmt.Sprintf("terraform-provider-%s_%s_%s.zip", parts[2], version, platform))
		var got string
		if st, err := os.Stat(unpacked); err == nil && st.IsDir() {
			if got, err = packageHashV1(unpacked); err != nil {
				return bad(source, "version %s: reading the mirror's package: %v", version, err)
			}
		} else if _, err := os.Stat(packed); err == nil {
			if got, err = zipHash(packed); err != nil {
				return bad(source, "version %s: reading the mirror's package: %v", version, err)
			}
		} else {
			return bad(source, "version %s for %s is not in the provider mirror %s (%s); it has %s",
				version, platform, mirrorDir, EnvProviderMirror, mirrorVersions(base, parts[2], platform))
		}
		if len(hashes) > 0 && !slices.Contains(hashes, got) {
			return bad(source, "version %s: the mirror's package hashes to %s, which the lock file does not list", version, got)
		}
	}
	return nil
}

func stringAttr(a *hcl.Attribute) (string, error) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.String || v.IsNull() {
		return "", fmt.Errorf("must be a string")
	}
	return v.AsString(), nil
}

// mirrorVersions lists what the mirror offers of a provider for the platform, for the error.
func mirrorVersions(base, typ, platform string) string {
	entries, _ := os.ReadDir(base)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			if st, err := os.Stat(filepath.Join(base, e.Name(), platform)); err == nil && st.IsDir() {
				out = append(out, e.Name())
			}
			continue
		}
		rest, ok := strings.CutPrefix(e.Name(), "terraform-provider-"+typ+"_")
		if v, ok2 := strings.CutSuffix(rest, "_"+platform+".zip"); ok && ok2 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return "no version of it"
	}
	sort.Strings(out)
	return "version(s) " + strings.Join(out, ", ")
}

// packageHashV1 is terraform's "h1:" hash of an unpacked provider package: golang.org/x/mod's
// dirhash Hash1 over the directory's files.
func packageHashV1(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	sum := sha256.New()
	for _, name := range files {
		if strings.Contains(name, "\n") {
			return "", fmt.Errorf("file name %q has a newline", name)
		}
		h, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(sum, "%s  %s\n", h, name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(sum.Sum(nil)), nil
}

// zipHash is terraform's "zh:" hash of a packed provider package: the zip file's SHA-256.
func zipHash(file string) (string, error) {
	sum, err := fileSHA256(file)
	if err != nil {
		return "", err
	}
	return "zh:" + sum, nil
}
