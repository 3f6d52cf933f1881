package argocd

import "github.com/slipway-dev/slipway/internal/deploy"

// syncPolicy is the Application's sync policy for a stack's sync:. nil (the stack says
// nothing) leaves the Application's as it is; an empty one (automated: false) turns ArgoCD's
// automated sync off.
func syncPolicy(s *deploy.Sync) *SyncPolicy {
	if s == nil {
		return nil
	}
	p := &SyncPolicy{}
	if s.Automated {
		p.Automated = &SyncPolicyAutomated{SelfHeal: s.SelfHeal}
	}
	return p
}

// setSyncPolicy writes want's automated sync into an application's spec object, keeping an
// operator's sync options; nil want changes nothing.
func setSyncPolicy(spec map[string]any, want *SyncPolicy) {
	if want == nil {
		return
	}
	sp := child(spec, "syncPolicy")
	if want.Automated == nil {
		delete(sp, "automated")
		return
	}
	sp["automated"] = map[string]any{"selfHeal": want.Automated.SelfHeal, "prune": want.Automated.Prune}
}
