package localgit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

// notesShow is `git notes --ref=REF show OBJECT` in dir, "" when object has no note.
func notesShow(t *testing.T, dir, ref, object string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "notes", "--ref="+ref, "show", object)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && strings.Contains(string(exit.Stderr), "no note found") {
		return ""
	}
	require.NoError(t, err, "git notes show %s", object)
	return string(out)
}

var markerLine = regexp.MustCompile(`(?m)^<!-- slipway:\S+ -->\n?`)

// splitComments cuts a comments note after each marker line.
func splitComments(note string) []string {
	var out []string
	for note != "" {
		loc := markerLine.FindStringIndex(note)
		if loc == nil {
			return append(out, note)
		}
		out = append(out, strings.TrimLeft(note[:loc[1]], "\n"))
		note = note[loc[1]:]
	}
	return out
}

// readBack reads statuses and comments with plain git, as a person would.
func readBack(dir string) forgetest.ReadBack {
	return forgetest.ReadBack{
		Statuses: func(t *testing.T, sha string) []forge.CommitStatus {
			var out []forge.CommitStatus
			for _, line := range strings.Split(notesShow(t, dir, "slipway-status", sha), "\n") {
				if line == "" {
					continue
				}
				f := strings.Split(line, "\t")
				require.Len(t, f, 4, "status line %q", line)
				out = append(out, forge.CommitStatus{Context: f[0], State: forge.StatusState(f[1]), Description: f[2], TargetURL: f[3]})
			}
			return out
		},
		Comments: func(t *testing.T, mr forge.MergeRequest) []string {
			out := splitComments(notesShow(t, dir, "slipway-comments", mr.HeadSHA))
			if mr.MergeSHA != "" && mr.MergeSHA != mr.HeadSHA {
				out = append(out, splitComments(notesShow(t, dir, "slipway-comments", mr.MergeSHA))...)
			}
			return out
		},
	}
}

func TestReport(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, dir := newBare(t)
		return f, readBack(dir)
	})
}

func TestReportNonBare(t *testing.T) {
	forgetest.Report(t, func(t *testing.T) (forgetest.Reporting, forgetest.ReadBack) {
		f, dir := newNonBare(t)
		return f, readBack(dir)
	})
}

func TestStatusNoteIsPlainText(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)
	require.NoError(t, f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusSuccess, Context: "slipway/acme/web",
		Description: "applied\tin\n2 steps", TargetURL: "https://slipway.example/r/1"}))
	require.NoError(t, f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusError, Context: "slipway/acme/db"}))
	assert.Equal(t, "slipway/acme/web\tsuccess\tapplied in 2 steps\thttps://slipway.example/r/1\nslipway/acme/db\terror\t\t\n",
		notesShow(t, dir, "slipway-status", head))
	assert.Equal(t, "2", gitIn(t, dir, "rev-list", "--count", StatusNotes), "one notes commit per change")
	require.NoError(t, f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusError, Context: "slipway/acme/db"}))
	assert.Equal(t, "2", gitIn(t, dir, "rev-list", "--count", StatusNotes), "an unchanged status writes nothing")
}

// Notes written by git itself may be fanned out into directories; slipway must find and replace them.
func TestStatusReplacesAFannedOutNote(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)
	gitIn(t, dir, "notes", "--ref=slipway-status", "add", "-m", "slipway/acme/web\tpending\told\t", head)
	// Move the note to ab/cdef… as git does once a notes tree grows large.
	blob := gitIn(t, dir, "rev-parse", StatusNotes+":"+head)
	index := []string{"GIT_INDEX_FILE=" + t.TempDir() + "/index"}
	gitEnv(t, dir, index, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+head[:2]+"/"+head[2:])
	fanned := gitEnv(t, dir, index, "write-tree")
	gitIn(t, dir, "update-ref", StatusNotes, gitIn(t, dir, "commit-tree", "-p", StatusNotes, "-m", "fan out", fanned))
	require.Contains(t, notesShow(t, dir, "slipway-status", head), "pending", "git reads the fanned-out note")

	require.NoError(t, f.SetStatus(ctx, head, forge.CommitStatus{State: forge.StatusSuccess, Context: "slipway/acme/web"}))
	assert.Equal(t, "slipway/acme/web\tsuccess\t\t\n", notesShow(t, dir, "slipway-status", head))
	assert.Equal(t, head, gitIn(t, dir, "ls-tree", "--name-only", StatusNotes), "one flat note, the fanned-out one gone")
}

// Writers race on the notes ref like mergers on the base: two forges on one repository
// (as two processes would be) lose no status and post each comment key once.
func TestReportConcurrently(t *testing.T) {
	f1, dir := newBare(t)
	f2, err := New(dir)
	require.NoError(t, err)
	ctx := context.Background()
	mr, err := f1.Open(ctx, change("slipway/acme/web/op-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)

	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		f := []*Forge{f1, f2}[i%2]
		wg.Add(3)
		go func() {
			defer wg.Done()
			errs <- f.SetStatus(ctx, mr.HeadSHA, forge.CommitStatus{State: forge.StatusSuccess, Context: "ctx-" + strconv.Itoa(i)})
		}()
		go func() {
			defer wg.Done()
			errs <- f.Comment(ctx, mr, "key-"+strconv.Itoa(i), "comment "+strconv.Itoa(i))
		}()
		go func() {
			defer wg.Done()
			errs <- f.Comment(ctx, mr, "same", "posted once")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	rb := readBack(dir)
	assert.Len(t, rb.Statuses(t, mr.HeadSHA), n)
	comments := rb.Comments(t, mr)
	assert.Len(t, comments, n+1)
	same := 0
	for _, c := range comments {
		if strings.Contains(c, forgetest.Marker("same")) {
			same++
		}
	}
	assert.Equal(t, 1, same, "one comment for the shared key")
}

func TestCommentRejectsTheBaseBranch(t *testing.T) {
	f, _ := newBare(t)
	err := f.Comment(context.Background(), forge.MergeRequest{ID: "main"}, "k", "b")
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "mr.ID", invalid.Field)
}
