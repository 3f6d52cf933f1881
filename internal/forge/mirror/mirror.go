// Package mirror reads a GitOps repository through a second remote while its forge is down,
// as EDP's observability keeps mirrors of edp's repositories: writes (MRs) still go to the
// forge, which is the source of truth; reads fall back to the mirror, which the forge's own
// mirroring keeps in step.
package mirror

import (
	"context"
	"errors"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Forge is a forge with a read-only mirror.
type Forge struct {
	forge.Forge
	mirror forge.Forge
}

var (
	_ forge.Forge    = (*Forge)(nil)
	_ forge.Reporter = (*Forge)(nil)
	_ forge.Mirrored = (*Forge)(nil)
)

// New reads primary through mirror whenever primary cannot be reached.
func New(primary, mirror forge.Forge) *Forge { return &Forge{Forge: primary, mirror: mirror} }

// down says the forge could not answer at all; a definite answer (not found, invalid) is kept.
func down(err error) bool {
	return err != nil && !forge.IsNonRetryable(err) && !errors.Is(err, context.Canceled)
}

// Head is the forge's base head, or the mirror's while the forge is down.
func (f *Forge) Head(ctx context.Context) (string, error) {
	sha, _, err := f.HeadVia(ctx)
	return sha, err
}

// HeadVia also says which repository answered: the forge's URL or the mirror's.
func (f *Forge) HeadVia(ctx context.Context) (string, string, error) {
	sha, err := f.Forge.Head(ctx)
	if !down(err) {
		return sha, f.Forge.RepoURL(), err
	}
	msha, merr := f.mirror.Head(ctx)
	if merr != nil {
		return "", "", errors.Join(err, merr)
	}
	return msha, f.mirror.RepoURL(), nil
}

// ReadDir reads from the forge, or from the mirror while the forge is down.
func (f *Forge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	files, err := f.Forge.ReadDir(ctx, rev, dir)
	if !down(err) {
		return files, err
	}
	mfiles, merr := f.mirror.ReadDir(ctx, rev, dir)
	if merr != nil {
		return nil, errors.Join(err, merr)
	}
	return mfiles, nil
}

// MirrorURL is where a deployer can read the repository while the forge is down.
func (f *Forge) MirrorURL() string { return f.mirror.RepoURL() }

// SetStatus reports on the forge when it can; the mirror is read-only.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.CommitStatus) error {
	if r, ok := f.Forge.(forge.Reporter); ok {
		return r.SetStatus(ctx, sha, s)
	}
	return nil
}

// Comment comments on the forge when it can.
func (f *Forge) Comment(ctx context.Context, mr forge.MergeRequest, key, body string) error {
	if r, ok := f.Forge.(forge.Reporter); ok {
		return r.Comment(ctx, mr, key, body)
	}
	return nil
}

var _ forge.Permissions = (*Forge)(nil)

// Issuer is the forge's, "" when it cannot say what its users may do (the mirror cannot either).
func (f *Forge) Issuer() string {
	if p, ok := f.Forge.(forge.Permissions); ok {
		return p.Issuer()
	}
	return ""
}

// Permission asks the forge: a user's permission is never read from the mirror, which knows no users.
func (f *Forge) Permission(ctx context.Context, login string) (forge.User, forge.Permission, error) {
	if p, ok := f.Forge.(forge.Permissions); ok {
		return p.Permission(ctx, login)
	}
	return forge.User{}, forge.PermissionNone, &forge.InvalidError{Field: "forge", Value: f.Name(), Problem: "cannot say what its users may do"}
}
