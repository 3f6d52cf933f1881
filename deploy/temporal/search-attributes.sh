#!/bin/sh
# Registers slipway's custom search attributes, so Temporal UI lists can filter
# instances by state, tenant and name. Safe to re-run: existing ones are kept.
set -eu
ns="${TEMPORAL_NAMESPACE:-default}"
addr="${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be set}"
for name in InstanceState Tenant InstanceName InstanceReady AppObserved InstanceStack InstanceOperation InstanceRollout RolloutPhase InstanceDrifted; do
	if temporal operator search-attribute list --address "$addr" --namespace "$ns" | grep -qw "$name"; then
		echo "search attribute $name already registered"
		continue
	fi
	temporal operator search-attribute create --address "$addr" --namespace "$ns" --name "$name" --type Keyword
done
