#!/bin/sh
# Registers slipway's custom search attributes, so Temporal UI lists can filter
# instances by state, tenant and name. Safe to re-run: existing ones are kept.
set -eu
ns="${TEMPORAL_NAMESPACE:-default}"
addr="${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be set}"
# SQL visibility holds at most 10 Keyword attributes per namespace; slipway uses all 10, so
# yes/no attributes are Bool.
for spec in InstanceState:Keyword Tenant:Keyword InstanceName:Keyword InstanceReady:Keyword AppObserved:Keyword \
	InstanceStack:Keyword InstanceOperation:Keyword InstanceRollout:Keyword RolloutPhase:Keyword InstanceDrifted:Keyword \
	InstanceGated:Bool; do
	name="${spec%%:*}"
	type="${spec#*:}"
	if temporal operator search-attribute list --address "$addr" --namespace "$ns" | grep -qw "$name"; then
		echo "search attribute $name already registered"
		continue
	fi
	temporal operator search-attribute create --address "$addr" --namespace "$ns" --name "$name" --type "$type"
done
