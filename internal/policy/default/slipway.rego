# slipway's default policy: who may act on which tenant's instances, and when a person must
# approve first. The platform owns it; SLIPWAY_POLICY_DIR replaces it (docs/policy.md).
#
# Entry point: data.slipway.decision = {allow, reason, approval: {groups, count, allowSelf}}.
package slipway

# Operations that run a pipeline with a terraform plan and can wait for approval.
pipeline_ops := {"provision", "deploy", "archive", "destroy", "deprovision"}

# Operations that stop or remove the app or its data (the stack's approval: destructive).
removing_ops := {"archive", "destroy", "deprovision"}

# Operations that always need a platform approval, whatever the stack says.
platform_ops := {"destroy", "deprovision"}

approving if input.operation in {"approve", "reject"}

# --- who the actor is

# The data this policy reads (data.json), each optional.
default forge_map := {}

forge_map := data.slipway.forge_users

default people_map := {}

people_map := data.slipway.people

# person_of is the person an actor is: a signed-in person's user name, or the person the
# forge login maps to in data.slipway.forge_users[forge][login]. Undefined otherwise.
person_of(a) := a.name if a.kind == "person"

person_of(a) := p if {
	a.kind == "forge"
	p := forge_map[forge_key(a.issuer)][a.name]
}

# forge_key is the data.slipway.forge_users key for a forge issuer: the issuer itself, or the
# forge's kind before the first ":" ("gitea:http://127.0.0.1:3000" -> "gitea"; "github").
forge_key(issuer) := issuer if forge_map[issuer]

else := split(issuer, ":")[0]

# groups_of are an actor's verified groups plus those data.slipway.people grants its person.
groups_of(a) := {g | some g in object.get(a, "groups", [])} | {g |
	p := person_of(a)
	some g in object.get(object.get(people_map, p, {}), "groups", [])
}

actor_groups := groups_of(input.actor)

actor_name := p if {
	p := person_of(input.actor)
} else := input.actor.name

service if input.actor.kind == "service"

platform_admin if "platform-admins" in actor_groups

tenant_group := sprintf("tenant:%s", [input.tenant])

tenant_member if tenant_group in actor_groups

# same_person: one subject at one issuer, or one person however they came (CLI or forge).
same_person(a, b) if {
	a.subject != ""
	a.issuer == b.issuer
	a.subject == b.subject
}

same_person(a, b) if person_of(a) == person_of(b)

# --- the decision

decision := {"allow": false, "reason": concat("; ", sort(deny))} if {
	count(deny) > 0
} else := {"allow": true, "reason": approval_reason, "approval": approval} if {
	approval
} else := {"allow": true, "reason": allow_reason}

# Who may act: tenant members on their tenant, platform admins everywhere, slipway's own
# components where the request's own rules (below) allow; approvals are checked apart.
# Reads (operation "read": slipway server's status, events, plan, list, audit, drift list,
# rollout plan) follow the same rule: members read their tenant, platform admins every tenant
# and the whole fleet (tenant "*"), anyone else nothing. A read never waits for an approval.
deny contains msg if {
	not approving
	not fleet_wide
	not platform_admin
	not tenant_member
	not service
	msg := sprintf("%s may not %s instances of tenant %s: not a member of %s nor of platform-admins", [actor_name, input.operation, input.tenant, tenant_group])
}

# A rollout or drift check that names no tenant ("" or "*") spans every tenant: the platform's to start.
fleet_wide if object.get(input, "tenant", "") in {"", "*"}

deny contains msg if {
	not approving
	fleet_wide
	not platform_admin
	not service
	msg := sprintf("%s may not %s across every tenant: only platform-admins may", [actor_name, input.operation])
}

allow_reason := sprintf("%s may %s: %s", [actor_name, input.operation, approver_why]) if approving

else := sprintf("%s is a platform admin", [actor_name]) if platform_admin

else := sprintf("%s is a member of tenant %s", [actor_name, input.tenant]) if {
	not fleet_wide
	tenant_member
}

else := sprintf("%s is slipway's own component", [actor_name]) if service

# --- deletion protection: lifting it is the platform's, never a tenant's nor a component's

deny contains msg if {
	input.operation == "unprotect"
	not platform_admin
	msg := sprintf("unprotect needs platform-admins: %s is not a member", [actor_name])
}

deny contains msg if {
	input.operation == "unprotect"
	service
	msg := sprintf("%s is a slipway component: only a platform admin may unprotect", [actor_name])
}

# --- change windows: starting an operation outside them is the platform's call

deny contains msg if {
	object.get(request, "overrideWindow", false) == true
	not platform_admin
	msg := sprintf("--override-window needs platform-admins: %s is not a member", [actor_name])
}

# --- decisions that override a check slipway made

# The decision arguments (input.request) that override a check slipway made or the record of
# what happened, each with its flag: accepting files on main slipway did not render, going on
# past a failed hook, forcing a terraform lock, saying which state the instance is in. Only a
# platform admin may use them, and never on an operation they asked for themselves: four eyes.
overriding := {
	"acceptRender": "--accept-render",
	"skipHook": "--skip-hook",
	"forceUnlock": "--force-unlock",
	"to": "--to",
}

decisions := {"retry", "resolve", "abandon"}

request := r if {
	r := input.request
	is_object(r)
} else := {}

overrides contains flag if {
	input.operation in decisions
	some field, flag in overriding
	v := object.get(request, field, null)
	not v in {null, false, ""}
}

deny contains msg if {
	some flag in overrides
	not platform_admin
	msg := sprintf("%s needs platform-admins: %s is not a member", [flag, actor_name])
}

# The dev key's holder (via "dev", slipway dev) signs as whoever they like: four eyes cannot bind them.
dev_key if input.actor.via == "dev"

deny contains msg if {
	some flag in overrides
	not dev_key
	same_person(input.actor, input.current.requester)
	msg := sprintf("%s needs another platform admin: %s asked for the %s it decides on", [flag, actor_name, input.current.kind])
}

# --- approve and reject: only those the requirement names, never the requester unless allowed

required := input.approval.required

# satisfies: a member of one of the required groups, or the person a "user:NAME" entry names.
satisfies(a, req) if {
	some g in req.groups
	g in groups_of(a)
}

satisfies(a, req) if {
	some g in req.groups
	g == concat("", ["user:", person_of(a)])
}

approver_why := sprintf("one of the approvers (%s)", [concat(", ", required.groups)])

deny contains msg if {
	approving
	not input.approval
	msg := sprintf("%s names no approval to %s", [input.operation, input.operation])
}

deny contains msg if {
	approving
	service
	msg := sprintf("%s is a slipway component: only a person may %s", [actor_name, input.operation])
}

deny contains msg if {
	approving
	not service
	not satisfies(input.actor, required)
	msg := sprintf("%s may not %s: not one of the approvers (%s)", [actor_name, input.operation, concat(", ", required.groups)])
}

deny contains msg if {
	approving
	not required.allowSelf
	same_person(input.actor, input.approval.requester)
	msg := sprintf("%s asked for this and may not %s it: self-approval is refused", [actor_name, input.operation])
}

deny contains msg if {
	input.operation == "approve"
	some a in object.get(input.approval, "approvals", [])
	same_person(input.actor, a)
	msg := sprintf("%s has already approved: approvals count distinct people", [actor_name])
}

# --- when a person must approve first

plan := object.get(input, "plan", {})

resource_changes := rcs if {
	rcs := object.get(plan, "resource_changes", [])
	is_array(rcs)
} else := []

# removed: the addresses the plan deletes or replaces.
removed contains rc.address if {
	some rc in resource_changes
	"delete" in rc.change.actions
}

stateful_marks := object.get(input.stack, "stateful", [])

# stateful: the stack marks the resource by type (aws_db_instance), by address
# (aws_db_instance.main), or by address without its index (aws_db_instance.main[0]).
stateful(rc) if rc.type in stateful_marks

stateful(rc) if rc.address in stateful_marks

stateful(rc) if {
	some s in stateful_marks
	startswith(rc.address, concat("", [s, "["]))
}

verb(rc) := "replaces" if "create" in rc.change.actions

else := "deletes"

# Platform rules: destroy, deprovision, and a plan that deletes or replaces a stateful resource
# wait for platform-admins, whatever the stack's own approval: says. A platform admin's own
# request is that approval already (the stack's rule still applies to it).
platform_reasons contains sprintf("%s needs a platform approval", [input.operation]) if {
	not approving
	not platform_admin
	input.operation in platform_ops
}

platform_reasons contains msg if {
	not approving
	not platform_admin
	input.operation in pipeline_ops
	some rc in resource_changes
	"delete" in rc.change.actions
	stateful(rc)
	msg := sprintf("the plan %s %s, which the stack marks stateful: it needs a platform approval", [verb(rc), rc.address])
}

# The stack's approval: settings (the instance's tighten them), honoured below the platform's.
stack_rule := object.get(input.stack, "approval", {})

stack_policy := p if {
	p := object.get(stack_rule, "policy", "never")
	p != ""
} else := "never"

stack_reasons contains "the stack's approval: always" if {
	not approving
	input.operation in pipeline_ops
	stack_policy == "always"
}

stack_reasons contains sprintf("the stack's approval: destructive, and %s removes the app or its data", [input.operation]) if {
	not approving
	stack_policy == "destructive"
	input.operation in removing_ops
}

stack_reasons contains sprintf("the stack's approval: destructive, and the plan deletes or replaces %s", [concat(", ", sort(removed))]) if {
	not approving
	stack_policy == "destructive"
	input.operation in pipeline_ops
	count(removed) > 0
}

# The stack's approvers name people (alice) or groups (group:dba); with none, a member of the
# tenant or a platform admin approves.
stack_approvers := a if {
	a := object.get(stack_rule, "approvers", [])
	is_array(a)
	count(a) > 0
} else := []

approver_entry(a) := substring(a, count("group:"), -1) if startswith(a, "group:")

else := a if startswith(a, "user:")

else := concat("", ["user:", a])

stack_groups := [approver_entry(a) | some a in stack_approvers] if count(stack_approvers) > 0

else := [tenant_group, "platform-admins"]

approval := {"groups": ["platform-admins"], "count": 1, "allowSelf": false} if {
	count(platform_reasons) > 0
} else := {"groups": stack_groups, "count": 1, "allowSelf": false} if {
	count(stack_reasons) > 0
}

approval_reason := concat("; ", sort(platform_reasons)) if {
	count(platform_reasons) > 0
} else := concat("; ", sort(stack_reasons))
