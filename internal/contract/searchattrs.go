package contract

import "go.temporal.io/sdk/temporal"

// Typed search attributes the Temporal UI filters on.
var (
	SAInstanceState = temporal.NewSearchAttributeKeyKeyword("InstanceState")
	SATenant        = temporal.NewSearchAttributeKeyKeyword("Tenant")
	SAInstanceName  = temporal.NewSearchAttributeKeyKeyword("InstanceName")
	// SAInstanceReady is the Ready condition's status (True, False, Unknown), kept in step with observations.
	SAInstanceReady = temporal.NewSearchAttributeKeyKeyword("InstanceReady")
	// SAAppObserved fingerprints the app as the instance last recorded it; the observer compares against it.
	SAAppObserved = temporal.NewSearchAttributeKeyKeyword("AppObserved")
	// SAInstanceStack is the instance's stack; SAInstanceOperation its running or last operation.
	SAInstanceStack     = temporal.NewSearchAttributeKeyKeyword("InstanceStack")
	SAInstanceOperation = temporal.NewSearchAttributeKeyKeyword("InstanceOperation")
	// SAInstanceRollout is the rollout that last deployed the instance; SARolloutPhase a rollout's phase.
	SAInstanceRollout = temporal.NewSearchAttributeKeyKeyword("InstanceRollout")
	SARolloutPhase    = temporal.NewSearchAttributeKeyKeyword("RolloutPhase")
	// SAInstanceDrifted is the Drifted condition's status (True, False) after a drift check.
	SAInstanceDrifted = temporal.NewSearchAttributeKeyKeyword("InstanceDrifted")
	// SAInstanceGated is true while scheduling gates are set on the instance. It is a Bool: SQL
	// visibility holds at most 10 Keyword attributes, and the ten above use them all.
	SAInstanceGated = temporal.NewSearchAttributeKeyBool("InstanceGated")
	// SAInstanceAwaitingApproval is true while an operation waits for its plan's approval.
	SAInstanceAwaitingApproval = temporal.NewSearchAttributeKeyBool("InstanceAwaitingApproval")
	// SAInstanceDependencies are the TENANT/NAMEs the instance depends on: a dependency finds its users by it.
	SAInstanceDependencies = temporal.NewSearchAttributeKeyKeywordList("InstanceDependencies")
	// SAInstanceRetrying is true while a step of the running operation is Retrying (CondRetrying).
	// SQL visibility holds at most 3 Bool attributes: with this one, slipway uses all 3.
	SAInstanceRetrying = temporal.NewSearchAttributeKeyBool("InstanceRetrying")
	// SAInstanceRelease is the stack release the instance runs ("web@1.5.0"; unset on main's head).
	// A KeywordList of one value, since the 10 Keyword slots of SQL visibility are taken: the UI's
	// InstanceRelease = 'web@1.5.0' filters on it all the same.
	SAInstanceRelease = temporal.NewSearchAttributeKeyKeywordList("InstanceRelease")
	// SAInstanceWindowOpensAt is set while an operation waits for a change window: when it opens.
	// A Datetime: the Keyword and Bool slots of SQL visibility are all used.
	SAInstanceWindowOpensAt = temporal.NewSearchAttributeKeyTime("InstanceWindowOpensAt")
	// SAInstanceExpiresAt is when the instance expires, while it has an expiry (list --expiring).
	SAInstanceExpiresAt = temporal.NewSearchAttributeKeyTime("InstanceExpiresAt")
)

// SearchAttributes is the one declared list of slipway's search attributes with their types: workers
// register the missing ones as declared, and the dev server, the cluster harness, the registration
// script and compose are checked against it.
var SearchAttributes = []temporal.SearchAttributeKey{
	SAInstanceState, SATenant, SAInstanceName, SAInstanceReady, SAAppObserved,
	SAInstanceStack, SAInstanceOperation, SAInstanceRollout, SARolloutPhase, SAInstanceDrifted,
	SAInstanceGated, SAInstanceAwaitingApproval, SAInstanceDependencies, SAInstanceRetrying, SAInstanceRelease,
	SAInstanceWindowOpensAt, SAInstanceExpiresAt,
}

// SearchAttributeTypes is SearchAttributes as name -> type, spelled as `temporal operator
// search-attribute create --type` and `server start-dev --search-attribute` take it.
var SearchAttributeTypes = searchAttributeTypeNames(SearchAttributes)

// searchAttributeTypeNames spells each type as Temporal's shorthand (Keyword, Bool, ...).
func searchAttributeTypeNames(keys []temporal.SearchAttributeKey) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[k.GetName()] = k.GetValueType().String()
	}
	return m
}
