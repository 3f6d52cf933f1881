package localgit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Reporter = (*Forge)(nil)

// The notes refs reports go to, readable with plain git, e.g.
// `git notes --ref=slipway-status show SHA` or `git log --notes=slipway-comments`.
const (
	StatusNotes  = "refs/notes/slipway-status"   // one line per context: CONTEXT\tSTATE\tDESCRIPTION\tTARGET_URL
	CommentNotes = "refs/notes/slipway-comments" // comments, each ending with its <!-- slipway:KEY --> line
)

// SetStatus records s in sha's note under StatusNotes, replacing the line of s.Context.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.CommitStatus) error {
	sha, err := forge.CheckStatus(sha, s)
	if err != nil {
		return err
	}
	commit, err := f.git.resolve(ctx, sha+"^{commit}")
	if err != nil {
		return err
	}
	if commit == "" {
		return &forge.NotFoundError{What: "commit " + sha + " in " + f.path}
	}
	line := strings.Join([]string{s.Context, string(s.State), oneLine(s.Description), s.TargetURL}, "\t")
	return f.editNote(ctx, StatusNotes, commit, "slipway: status "+s.Context, func(read noteReader) (string, bool, error) {
		old, err := read(commit)
		if err != nil {
			return "", false, err
		}
		var lines []string
		replaced := false
		for _, l := range strings.Split(strings.TrimRight(old, "\n"), "\n") {
			if ctxOf, _, _ := strings.Cut(l, "\t"); ctxOf == s.Context && !replaced {
				if l == line {
					return "", false, nil // already set: write nothing
				}
				l, replaced = line, true
			}
			if l != "" {
				lines = append(lines, l)
			}
		}
		if !replaced {
			lines = append(lines, line)
		}
		return strings.Join(lines, "\n") + "\n", true, nil
	})
}

// Comment appends body to the note of mr's head commit (its merge commit once merged) under
// CommentNotes, unless the notes of either already carry key's marker. mr.ID is the branch.
func (f *Forge) Comment(ctx context.Context, mr forge.MergeRequest, key, body string) error {
	if err := forge.CheckComment(mr, key, body); err != nil {
		return err
	}
	if err := f.checkRefName(ctx, "mr.ID", mr.ID); err != nil {
		return err
	}
	if mr.ID == f.base {
		return &forge.InvalidError{Field: "mr.ID", Value: mr.ID, Problem: "is the base branch, not a merge request"}
	}
	b, ok, err := f.git.readBranch(ctx, mr.ID)
	if err != nil {
		return err
	}
	if !ok {
		return &forge.NotFoundError{What: "merge request (branch) " + mr.ID + " in " + f.path}
	}
	cur, err := f.describe(ctx, b)
	if err != nil {
		return err
	}
	target := cur.HeadSHA
	if cur.MergeSHA != "" {
		target = cur.MergeSHA
	}
	mark := forge.CommentMarker(key)
	return f.editNote(ctx, CommentNotes, target, "slipway: comment "+key+" on "+mr.ID, func(read noteReader) (string, bool, error) {
		var old string
		for _, c := range []string{cur.HeadSHA, target} { // one posted while the MR was open sits on its head
			note, err := read(c)
			if err != nil || strings.Contains(note, mark) {
				return "", false, err
			}
			old = note
		}
		if old != "" {
			old += "\n"
		}
		return old + forge.WithMarker(body, key) + "\n", true, nil
	})
}

// noteReader returns the note of object in the notes commit being edited ("" when none).
type noteReader func(object string) (string, error)

// editNote sets the note of object under ref to what edit makes of the current notes. Like
// Merge on the base branch it is a compare-and-swap of the notes ref, retried when another
// writer (goroutine or process) moved it first, so no report is lost and edit decides on the
// very notes it replaces. edit returning false writes nothing.
func (f *Forge) editNote(ctx context.Context, ref, object, msg string, edit func(noteReader) (string, bool, error)) error {
	var lastErr error
	for attempt := 0; attempt < f.cfg.attempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		retry, err := f.editNoteOnce(ctx, ref, object, msg, edit)
		if !retry {
			return err
		}
		lastErr = err
	}
	return fmt.Errorf("localgit: update %s: other writers kept moving it, %d attempts (last: %w)", ref, f.cfg.attempts, lastErr)
}

func (f *Forge) editNoteOnce(ctx context.Context, ref, object, msg string, edit func(noteReader) (string, bool, error)) (retry bool, err error) {
	tip, err := f.git.resolve(ctx, ref+"^{commit}")
	if err != nil {
		return false, err
	}
	content, write, err := edit(func(o string) (string, error) {
		_, blob, err := f.git.findNote(ctx, tip, o)
		if err != nil || blob == "" {
			return "", err
		}
		b, err := f.git.run(ctx, nil, nil, "cat-file", "blob", blob)
		return string(b), err
	})
	if err != nil || !write {
		return false, err
	}
	oldPath, _, err := f.git.findNote(ctx, tip, object)
	if err != nil {
		return false, err
	}
	tree, err := f.git.writeNote(ctx, tip, object, oldPath, content)
	if err != nil {
		return false, err
	}
	var parents []string
	if tip != "" {
		parents = []string{tip}
	}
	commit, err := f.git.commitTree(ctx, tree, msg+"\n", parents...)
	if err != nil {
		return false, err
	}
	old := tip
	if old == "" {
		old = zeroOID(commit)
	}
	_, err = f.git.run(ctx, nil, nil, "update-ref", "-m", msg, ref, commit, old)
	var g *GitError
	// "is at X but expected Y" (moved) or "Unable to create ....lock" (busy): recompute.
	return errors.As(err, &g) && strings.Contains(g.Stderr, "lock"), err
}

// findNote finds object's note in notes commit tip: its path (git may fan notes out into
// ab/cdef… directories) and blob; both "" when there is none.
func (r *runner) findNote(ctx context.Context, tip, object string) (path, blob string, err error) {
	if tip == "" {
		return "", "", nil
	}
	args := []string{"ls-tree", "-r", "-z", "--full-tree", tip, "--"}
	for i := 0; i < len(object)/2; i++ { // every fanout depth: ab…, ab/cd…, ab/cd/ef…
		var p strings.Builder
		for j := 0; j < i; j++ {
			p.WriteString(object[2*j:2*j+2] + "/")
		}
		args = append(args, p.String()+object[2*i:])
	}
	out, err := r.run(ctx, nil, nil, args...)
	if err != nil {
		return "", "", err
	}
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(entry, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			return p, f[2], nil
		}
	}
	return "", "", nil
}

// writeNote writes the tree of notes commit tip (none: empty) with object's note set to
// content at the flat path, dropping a fanned-out oldPath. It uses an index of its own.
func (r *runner) writeNote(ctx context.Context, tip, object, oldPath, content string) (string, error) {
	tmp, err := os.MkdirTemp("", "slipway-localgit-notes-*")
	if err != nil {
		return "", fmt.Errorf("localgit: temporary index: %w", err)
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if tip != "" {
		if _, err := r.run(ctx, nil, env, "read-tree", tip); err != nil {
			return "", err
		}
	}
	blob, err := r.run(ctx, strings.NewReader(content), nil, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	var info bytes.Buffer
	if oldPath != "" && oldPath != object {
		fmt.Fprintf(&info, "0 %s\t%s\x00", zeroOID(object), oldPath) // mode 0 removes the entry
	}
	fmt.Fprintf(&info, "100644 %s\t%s\x00", strings.TrimSpace(string(blob)), object)
	if _, err := r.run(ctx, &info, env, "update-index", "--add", "-z", "--index-info"); err != nil {
		return "", err
	}
	tree, err := r.run(ctx, nil, env, "write-tree")
	return strings.TrimSpace(string(tree)), err
}

// oneLine keeps a description on its status line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
