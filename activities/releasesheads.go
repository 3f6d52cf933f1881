package activities

import (
	"context"
	"fmt"
	"sync"

	"github.com/slipway-dev/slipway/internal/config"
)

// ReleasesHeads records each stack's newest releases file, generation and seal, where only slipway
// writes (internal/store: the shared store, or the worker's state dir).
type ReleasesHeads interface {
	RaiseReleasesHead(ctx context.Context, stack string, generation int, seal string) (int, string, error)
	ReleasesHead(ctx context.Context, stack string) (int, string, error)
}

// freshReleases keeps the commits whose releases file was found fresh: a commit's file never
// changes, and once slipway's latest or behind main's it stays so, so each is asked once.
var freshReleases = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// fresh refuses a sealed releases file that is not slipway's latest: the seal says slipway wrote
// the bytes once, not that they are its last decision, and a tenant's commit can restore an
// earlier sealed file on main. The file read at rev is fresh when it is the head recorded (or a
// newer one, which raises it), or when main itself holds the head (rev is then history: a step
// reading the commit its attempt pinned before a channel moved). A file written before
// generations were counted is generation 0; the first one seen on main is recorded.
func (a *Activities) fresh(ctx context.Context, rev string, r *config.Releases) error {
	if a.Heads == nil {
		return nil
	}
	key := a.Forge.RepoURL() + "\x00" + rev + "\x00" + r.Stack + "\x00" + r.Seal
	if knownFresh(rev, key) {
		return nil
	}
	// Generation 0 is recorded from main only: an older unnumbered file at a past commit must
	// not be taken for the first seen.
	if r.Generation > 0 || rev == "" {
		gen, seal, err := a.Heads.RaiseReleasesHead(ctx, r.Stack, r.Generation, r.Seal)
		if err != nil {
			return classify(err)
		}
		if rev == "" && (gen != r.Generation || seal != r.Seal) {
			return invalidConfig(replayed(r, gen))
		}
		if gen == r.Generation && seal == r.Seal {
			return rememberFresh(rev, key)
		}
	}
	if rev != "" {
		if _, err := a.readReleases(ctx, "", r.Stack); err != nil {
			return err // main holds a replayed file: the error names it
		}
	}
	return rememberFresh(rev, key)
}

func knownFresh(rev, key string) bool {
	if !commitSHA.MatchString(rev) {
		return false
	}
	freshReleases.Lock()
	defer freshReleases.Unlock()
	return freshReleases.m[key]
}

func rememberFresh(rev, key string) error {
	if commitSHA.MatchString(rev) {
		freshReleases.Lock()
		if len(freshReleases.m) >= maxCommitReads {
			freshReleases.m = map[string]bool{}
		}
		freshReleases.m[key] = true
		freshReleases.Unlock()
	}
	return nil
}

// replayed is the refusal of a releases file on main that is not the latest slipway wrote.
func replayed(r *config.Releases, head int) error {
	file := config.ReleasesDir(r.Stack) + "/" + config.ReleasesFile
	what := fmt.Sprintf("generation %d, older than generation %d, the last slipway wrote", r.Generation, head)
	if r.Generation == head {
		what = fmt.Sprintf("generation %d, but not the generation %d slipway wrote", r.Generation, head)
	}
	return fieldError(file, "replayed: main holds an earlier releases file slipway sealed ("+what+
		"), restored by a commit that was not slipway's; refusing to resolve its releases and channels. Restore the file as slipway's last MR merged it (git revert the commit that restored it)")
}

// notDeleted refuses an absent or empty releases file once slipway has written one for the stack:
// deleting the file would unpin every instance on the default channel, which would then render
// main's unreleased stack. At a past commit the file may not exist yet; main is then asked.
func (a *Activities) notDeleted(ctx context.Context, rev, stack string) error {
	if a.Heads == nil {
		return nil
	}
	key := a.Forge.RepoURL() + "\x00" + rev + "\x00" + stack + "\x00"
	if knownFresh(rev, key) {
		return nil
	}
	if rev != "" {
		if _, err := a.readReleases(ctx, "", stack); err != nil {
			return err
		}
		return rememberFresh(rev, key)
	}
	gen, _, err := a.Heads.ReleasesHead(ctx, stack)
	if err != nil {
		return classify(err)
	}
	if gen > 0 {
		file := config.ReleasesDir(stack) + "/" + config.ReleasesFile
		return invalidConfig(fieldError(file, fmt.Sprintf("deleted: main holds no releases file, but slipway wrote generation %d of it; "+
			"refusing to render the stack unpinned. Restore the file as slipway's last MR merged it (git revert the commit that removed it)", gen)))
	}
	return nil
}
