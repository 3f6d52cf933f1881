package attest

import (
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"
)

// An attestation acts once. Temporal de-duplicates an update by its ID, but a copy of an
// accepted update's header and arguments sent under a new update ID (or after the run continued
// as new, which forgets update IDs) would otherwise verify again until it expires. So a run
// remembers the attestations its updates used, while they are young enough to verify, and hands
// them to the run it continues as, in the new run's header.

// usedHeader carries the used attestations across continue-as-new.
const usedHeader = "slipway-used-attestations"

// usedFor is how long an attestation must be remembered: as long as it could still verify.
const usedFor = MaxAge + maxSkew

// use remembers a, and forgets the ones too old to verify anyway.
func (i *inbound) use(a Attestation, now time.Time) {
	if i.used == nil {
		i.used = map[string]time.Time{}
	}
	i.used[a.MAC] = a.IssuedAt
	for mac, at := range i.used {
		if now.Sub(at) > usedFor {
			delete(i.used, mac)
		}
	}
}

// readUsed is the used attestations a continued run's start header carries.
func readUsed(header map[string]*commonpb.Payload, dc converter.DataConverter) map[string]time.Time {
	p, ok := header[usedHeader]
	if !ok || p == nil {
		return nil // most runs: a parked instance keeps no map
	}
	var used map[string]time.Time
	_ = dc.FromPayload(p, &used)
	return used
}

// NewContinueAsNewError hands the run's used attestations to the run it continues as.
func (o *outbound) NewContinueAsNewError(ctx workflow.Context, wfn any, args ...any) error {
	if h := interceptor.WorkflowHeader(ctx); h != nil && o.in != nil && len(o.in.used) > 0 {
		if p, err := o.dc.ToPayload(o.in.used); err == nil {
			h[usedHeader] = p
		}
	}
	return o.Next.NewContinueAsNewError(ctx, wfn, args...)
}
