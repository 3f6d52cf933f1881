#!/bin/sh
# Registers slipway's custom search attributes with their declared types, so Temporal UI lists can
# filter instances by state, tenant and name. Safe to re-run: existing ones are kept; one registered
# with another type is an error, since every workflow upserting it would fail.
# A worker with operator rights registers them itself; this is for clusters where it has none.
# The list is contract.SearchAttributes: internal/client's tests fail when the two differ.
set -eu
ns="${TEMPORAL_NAMESPACE:-default}"
addr="${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be set}"
# SQL visibility holds at most 10 Keyword attributes per namespace; slipway uses all 10, so
# yes/no attributes are Bool.
specs="InstanceState:Keyword Tenant:Keyword InstanceName:Keyword InstanceReady:Keyword AppObserved:Keyword
InstanceStack:Keyword InstanceOperation:Keyword InstanceRollout:Keyword RolloutPhase:Keyword InstanceDrifted:Keyword
InstanceGated:Bool InstanceAwaitingApproval:Bool InstanceDependencies:KeywordList InstanceRetrying:Bool InstanceRelease:KeywordList InstanceWindowOpensAt:Datetime InstanceExpiresAt:Datetime"
listed="$(temporal operator search-attribute list --address "$addr" --namespace "$ns")"
for spec in $specs; do
	name="${spec%%:*}"
	type="${spec#*:}"
	have="$(printf '%s\n' "$listed" | awk -v n="$name" '$1 == n { print $2 }')"
	if [ "$have" = "$type" ]; then
		echo "search attribute $name already registered as $type"
		continue
	fi
	if [ -n "$have" ]; then
		echo "search attribute $name is registered as $have, slipway declares $type: remove it first" >&2
		exit 1
	fi
	temporal operator search-attribute create --address "$addr" --namespace "$ns" --name "$name" --type "$type"
done
