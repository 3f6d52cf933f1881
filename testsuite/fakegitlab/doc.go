// Package fakegitlab is a FAKE GitLab server for tests: GitLab cannot run here, so this
// in-memory stand-in answers the documented REST v4 endpoints slipway's gitlab forge uses
// (projects, repository branches/commits/tree/blobs/compare, merge_requests, merge and close),
// with GitLab's status codes, JSON error bodies, offset pagination headers, PRIVATE-TOKEN
// auth, 429 rate limiting and real git object IDs. It is not GitLab: only what the forge
// needs is implemented, and behaviour outside the documented contract is not modelled.
package fakegitlab
