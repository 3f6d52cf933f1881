package terraform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// BackendFile is the generated file that selects the state backend; callers may not supply it.
const BackendFile = "slipway_backend.tf"

// StackFile records the workspace's stack (in its record directory), so it travels with a saved
// plan and an apply on any worker gets the stack's allowed variables.
const StackFile = "slipway_stack"

// CredentialsFile records the names of the credentials the workspace's stack needs, one a line,
// so they travel with a saved plan like StackFile; never their values.
const CredentialsFile = "slipway_credentials"

// records are the names Prepare records of a workspace in its record directory, never its working
// directory: terraform's code (a provider, a provisioner) may write anything it can see, and these
// decide the stack, credentials, engine and lock mode the next command gets.
var records = []string{StackFile, CredentialsFile, EngineFile, lockModeFile, filesRecord}

// filesRecord lists what Prepare wrote in the working directory but the lock file, a sha256 and a
// path a line: a stored plan carries exactly these, unchanged, and nothing terraform's code wrote.
const filesRecord = "files"

// Names in the working directory that Prepare keeps: init's artifacts, plans and apply markers.
const (
	dataDir     = ".terraform"
	depLockFile = ".terraform.lock.hcl"
	appliedDir  = "applied"
	planExt     = ".tfplan"
	tmpPrefix   = ".slipway-tmp-"
	// scratchPrefix starts every file slipway writes for itself in a working directory.
	scratchPrefix = ".slipway-"
	filesField    = "files"
	dirPerm       = 0o700
	filePerm      = 0o600
	backendLocTF  = "terraform {\n  backend \"local\" {}\n}\n"
	backendPGTF   = "terraform {\n  backend \"pg\" {}\n}\n"
)

// Prepare makes the working directory hold exactly files (paths relative, slash-separated)
// plus the generated backend file, removing anything stale but keeping .terraform/,
// .terraform.lock.hcl, plan files and apply markers. Unchanged files are not rewritten.
func (r *Runner) Prepare(ctx context.Context, ws Workspace, files map[string][]byte) error {
	if err := ws.validate(); err != nil {
		return err
	}
	want, err := checkFiles(files)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return &CommandError{Command: "prepare", Workspace: ws, Err: err}
	}
	backend := backendLocTF
	if r.Backend() == backendPG {
		backend = backendPGTF
	}
	want[BackendFile] = []byte(backend)
	rec := map[string][]byte{}
	if stack := r.stackOf(ws); stack != "" {
		rec[StackFile] = []byte(stack + "\n")
	}
	if names := r.credentialsOf(ws); len(names) > 0 {
		rec[CredentialsFile] = []byte(strings.Join(names, "\n") + "\n")
	}
	if ws.Engine != "" {
		rec[EngineFile] = []byte(strings.TrimSpace(ws.Engine) + "\n")
	}
	if _, shipped := want[depLockFile]; shipped {
		// The stack's own lock file: every init enforces it.
		rec[lockModeFile] = []byte(lockReadonly)
	} else {
		lock, mode, err := r.lockFor(ctx, ws)
		if err != nil {
			return storeErr(ws, "prepare", err)
		}
		if lock != nil {
			want[depLockFile] = lock
		}
		if mode != "" {
			rec[lockModeFile] = []byte(mode)
		}
	}

	rec[filesRecord] = manifest(want)
	dir := r.Dir(ws)
	fail := func(err error) error { return &CommandError{Command: "prepare", Workspace: ws, Err: err} }
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fail(err)
	}
	if err := r.writeRecords(ws, rec); err != nil {
		return fail(err)
	}
	// Stale entries go first so that a wanted file never collides with an old directory.
	if err := removeStale(ctx, ws, dir, want); err != nil {
		return fail(err)
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := writeIfChanged(filepath.Join(dir, filepath.FromSlash(name)), want[name]); err != nil {
			return fail(err)
		}
	}
	return nil
}

// writeRecords makes ws's record directory hold exactly rec.
func (r *Runner) writeRecords(ws Workspace, rec map[string][]byte) error {
	dir := r.recordDir(ws)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	for _, name := range records {
		p := filepath.Join(dir, name)
		data, ok := rec[name]
		if !ok {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := writeIfChanged(p, data); err != nil {
			return err
		}
	}
	return nil
}

// maxOwnFile bounds what the worker reads of one file terraform's code may have written.
const maxOwnFile = 16 << 20

// readOwn reads a file where terraform's code may write (the working directory, HOME, the local
// state's directory) as the worker, which sees what the sandbox does not: never through a
// symlink, never from a FIFO or device, never more than maxOwnFile.
func readOwn(p string) ([]byte, error) {
	f, err := openOwn(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notOwn(p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxOwnFile+1))
	if err == nil && len(data) > maxOwnFile {
		return nil, &InvalidInputError{Field: "files", Value: filepath.Base(p),
			Reason: fmt.Sprintf("is over %d bytes, more than slipway reads of a file terraform's code can write", maxOwnFile)}
	}
	return data, err
}

// notOwn is readOwn's error for a symlink, FIFO, device or directory where a file was.
func notOwn(p string) error {
	return &InvalidInputError{Field: "files", Value: filepath.Base(p),
		Reason: "is no longer a regular file (terraform's code, a provider or a provisioner, replaced it)"}
}

// manifest is filesRecord's content for want; the lock file is left out, as init may rewrite it.
func manifest(want map[string][]byte) []byte {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if name != depLockFile {
			b.WriteString(bytesSHA256(want[name]) + "  " + name + "\n")
		}
	}
	return []byte(b.String())
}

// record is ws's record name (trimmed), "" when there is none.
func (r *Runner) record(ws Workspace, name string) string {
	b, err := os.ReadFile(filepath.Join(r.recordDir(ws), name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// checkFiles validates the caller's paths and returns them cleaned.
func checkFiles(files map[string][]byte) (map[string][]byte, error) {
	if len(files) == 0 {
		return nil, &InvalidInputError{Field: filesField, Reason: "must hold at least one terraform file; an empty configuration would plan to destroy everything"}
	}
	out := make(map[string][]byte, len(files)+1)
	for name, data := range files {
		bad := func(reason string) error {
			return &InvalidInputError{Field: filesField + " path", Value: name, Reason: reason}
		}
		clean := path.Clean(name)
		first, _, _ := strings.Cut(clean, "/")
		switch {
		case name == "" || strings.TrimSpace(name) == "":
			return nil, bad("must not be empty")
		case strings.Contains(name, "\\") || strings.ContainsRune(name, 0):
			return nil, bad("must use '/' separators and no NUL bytes")
		case path.IsAbs(clean) || clean != name:
			return nil, bad("must be a clean relative path")
		case first == "..":
			return nil, bad("must stay inside the working directory")
		case clean == BackendFile:
			return nil, bad("is generated by slipway to select the state backend")
		case clean == StackFile:
			return nil, bad("is generated by slipway to record the stack")
		case clean == CredentialsFile:
			return nil, bad("is generated by slipway to record the stack's credentials")
		case clean == lockModeFile:
			return nil, bad("is generated by slipway to say how init treats the lock file")
		case clean == EngineFile:
			return nil, bad("is generated by slipway to record the engine")
		case first == dataDir || first == appliedDir || strings.HasPrefix(path.Base(clean), tmpPrefix) ||
			(!strings.Contains(clean, "/") && strings.HasSuffix(clean, planExt)):
			return nil, bad("is reserved for terraform's and slipway's own files")
		}
		if _, dup := out[clean]; dup {
			return nil, bad("appears twice")
		}
		out[clean] = data
	}
	for name := range out {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if _, clash := out[d]; clash {
				return nil, &InvalidInputError{Field: filesField + " path", Value: d, Reason: "is both a file and the directory of " + name}
			}
		}
	}
	return out, nil
}

// writeIfChanged writes atomically and only when the content differs, so re-runs touch nothing.
func writeIfChanged(target string, data []byte) error {
	return writeModeIfChanged(target, data, filePerm)
}

// writeModeIfChanged is writeIfChanged for a file of the given mode.
func writeModeIfChanged(target string, data []byte, mode os.FileMode) error {
	if old, err := readOwn(target); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(target), dirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), tmpPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// removeStale deletes every file not in want (except kept ones) and then empty directories;
// it notes each temporary file a writer killed with its worker left (slipway's, or terraform's
// own of the lock file, which it renames into place).
func removeStale(ctx context.Context, ws Workspace, dir string, want map[string][]byte) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		topLevel := !strings.Contains(rel, "/")
		if d.IsDir() {
			if topLevel && (rel == dataDir || rel == appliedDir) {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		}
		if _, ok := want[rel]; ok && d.Type().IsRegular() {
			return nil
		}
		if topLevel && (rel == depLockFile || strings.HasSuffix(rel, planExt)) && d.Type().IsRegular() {
			return nil // kept; a symlink in their place is terraform's code's, and goes
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) || (topLevel && (strings.HasPrefix(rel, depLockFile) || rel == emptyStateFile)) {
			if info, err := d.Info(); err == nil {
				noteRepair(ctx, "terraform: removed "+rel+", a temporary file a killed writer left in the working directory",
					"instance", ws.String(), "file", p, "age", time.Since(info.ModTime()).Round(time.Millisecond).String())
			}
		}
		return os.Remove(p)
	})
	if err != nil {
		return err
	}
	// Deepest first, so parents empty out after their children.
	for i := len(dirs) - 1; i >= 0; i-- {
		if entries, err := os.ReadDir(dirs[i]); err == nil && len(entries) == 0 {
			if err := os.Remove(dirs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
