# Tests of the default policy: `slipway policy test` runs them, as does `go test ./internal/policy`.
package slipway_test

import data.slipway

alice := {"kind": "person", "issuer": "https://idp.test", "subject": "u-alice", "name": "alice", "groups": ["tenant:acme"]}

bob := {"kind": "person", "issuer": "https://idp.test", "subject": "u-bob", "name": "bob", "groups": ["tenant:other"]}

carol := {"kind": "person", "issuer": "https://idp.test", "subject": "u-carol", "name": "carol", "groups": ["platform-admins"]}

mallory := {"kind": "person", "issuer": "https://idp.test", "subject": "u-mallory", "name": "mallory", "groups": []}

dave := {"kind": "person", "issuer": "https://idp.test", "subject": "u-dave", "name": "dave", "groups": ["tenant:acme"]}

worker := {"kind": "service", "issuer": "slipway", "subject": "worker", "name": "worker"}

gitea_alice := {"kind": "forge", "issuer": "gitea:http://127.0.0.1:3000", "subject": "7", "name": "alice-git"}

req(actor, op) := {"actor": actor, "operation": op, "tenant": "acme", "name": "web", "state": "running", "stack": {"name": "web"}}

with_stack(r, stack) := object.union(r, {"stack": stack})

replace_db_plan := {"resource_changes": [
	{"address": "aws_db_instance.main", "type": "aws_db_instance", "change": {"actions": ["delete", "create"]}},
	{"address": "aws_s3_bucket.logs", "type": "aws_s3_bucket", "change": {"actions": ["update"]}},
]}

test_member_deploys_own_tenant if {
	d := slipway.decision with input as req(alice, "deploy")
	d.allow
	not d.approval
}

test_other_tenant_denied_naming_the_tenant if {
	d := slipway.decision with input as req(bob, "deploy")
	not d.allow
	contains(d.reason, "tenant acme")
}

test_admin_acts_on_every_tenant if {
	d := slipway.decision with input as req(carol, "deploy")
	d.allow
	not d.approval
}

test_service_acts if {
	d := slipway.decision with input as req(worker, "refresh")
	d.allow
}

test_destroy_needs_platform_approval_even_when_stack_says_never if {
	d := slipway.decision with input as with_stack(req(alice, "destroy"), {"name": "web", "approval": {"policy": "never"}})
	d.allow
	d.approval == {"groups": ["platform-admins"], "count": 1, "allowSelf": false}
}

test_stateful_replace_needs_platform_approval if {
	r := object.union(
		with_stack(req(alice, "deploy"), {"name": "web", "stateful": ["aws_db_instance"], "approval": {"policy": "never"}}),
		{"plan": replace_db_plan},
	)
	d := slipway.decision with input as r
	d.approval.groups == ["platform-admins"]
	contains(d.reason, "replaces aws_db_instance.main")
}

test_stateful_by_address if {
	r := object.union(with_stack(req(alice, "deploy"), {"name": "web", "stateful": ["aws_db_instance.main"]}), {"plan": replace_db_plan})
	d := slipway.decision with input as r
	d.approval.groups == ["platform-admins"]
}

test_replace_of_unmarked_resource_follows_stack if {
	r := object.union(with_stack(req(alice, "deploy"), {"name": "web", "stateful": ["aws_rds_cluster"]}), {"plan": replace_db_plan})
	d := slipway.decision with input as r
	d.allow
	not d.approval
}

test_stack_destructive_names_approvers if {
	r := object.union(
		with_stack(req(alice, "deploy"), {"name": "web", "approval": {"policy": "destructive", "approvers": ["dave", "group:platform-admins"]}}),
		{"plan": replace_db_plan},
	)
	d := slipway.decision with input as r
	d.approval.groups == ["user:dave", "platform-admins"]
}

test_stack_always_without_approvers_is_tenant_or_admins if {
	d := slipway.decision with input as with_stack(req(alice, "deploy"), {"name": "web", "approval": {"policy": "always"}})
	d.approval.groups == ["tenant:acme", "platform-admins"]
	d.approval.allowSelf == false
}

approval_of(actor, requester, groups) := {
	"actor": actor, "operation": "approve", "tenant": "acme", "name": "web", "stack": {"name": "web"},
	"approval": {"requester": requester, "required": {"groups": groups, "count": 1, "allowSelf": false}},
}

test_admin_approves_members_destroy if {
	d := slipway.decision with input as approval_of(carol, alice, ["platform-admins"])
	d.allow
}

test_member_cannot_approve_own_destroy if {
	d := slipway.decision with input as approval_of(alice, alice, ["platform-admins", "tenant:acme"])
	not d.allow
	contains(d.reason, "self-approval")
}

test_non_approver_refused if {
	d := slipway.decision with input as approval_of(bob, alice, ["platform-admins"])
	not d.allow
	contains(d.reason, "not one of the approvers")
}

test_named_person_approves if {
	d := slipway.decision with input as approval_of(dave, alice, ["user:dave"])
	d.allow
}

test_forge_login_is_not_the_person_unless_mapped if {
	d := slipway.decision with input as approval_of(gitea_alice, bob, ["user:alice"])
	not d.allow
}

test_forge_login_mapped_to_person if {
	d := slipway.decision with input as approval_of(gitea_alice, bob, ["user:alice"])
		with data.slipway.forge_users as {"gitea": {"alice-git": "alice"}}
	d.allow
}

test_mapped_forge_login_cannot_approve_own_request if {
	d := slipway.decision with input as approval_of(gitea_alice, alice, ["user:alice"])
		with data.slipway.forge_users as {"gitea": {"alice-git": "alice"}}
	not d.allow
}

test_people_mapping_grants_tenant if {
	d := slipway.decision with input as req(gitea_alice, "deploy")
		with data.slipway.forge_users as {"gitea": {"alice-git": "alice"}}
		with data.slipway.people as {"alice": {"groups": ["tenant:acme"]}}
	d.allow
}

test_service_cannot_approve if {
	d := slipway.decision with input as approval_of(worker, alice, ["platform-admins"])
	not d.allow
}

test_second_approval_by_same_person_refused if {
	r := json.patch(approval_of(carol, alice, ["platform-admins"]), [{"op": "add", "path": "/approval/approvals", "value": [carol]}])
	d := slipway.decision with input as r
	not d.allow
}

test_reasons_never_name_a_plan_hash if {
	d := slipway.decision with input as approval_of(bob, alice, ["platform-admins"])
	not regex.match(`[0-9a-f]{7,}`, d.reason)
}

test_stateful_address_marks_its_instances if {
	plan := {"resource_changes": [{"address": "module.db.aws_db_instance.main[0]", "type": "aws_db_instance", "change": {"actions": ["delete"]}}]}
	r := object.union(with_stack(req(alice, "deploy"), {"name": "web", "stateful": ["module.db.aws_db_instance.main"]}), {"plan": plan})
	d := slipway.decision with input as r
	d.approval.groups == ["platform-admins"]
	contains(d.reason, "deletes module.db.aws_db_instance.main[0]")
}

test_plan_command_never_waits if {
	r := object.union(with_stack(req(alice, "plan"), {"name": "web", "stateful": ["aws_db_instance"], "approval": {"policy": "always"}}), {"plan": replace_db_plan})
	d := slipway.decision with input as r
	d.allow
	not d.approval
}

fleet(actor, op) := {"actor": actor, "operation": op, "tenant": "", "name": "", "stack": {"name": "web"}}

test_fleet_rollout_is_the_platforms if {
	d := slipway.decision with input as fleet(carol, "rollout")
	d.allow
	e := slipway.decision with input as fleet(alice, "rollout")
	not e.allow
	contains(e.reason, "across every tenant")
}

# Cutting a stack release or moving a channel changes what every tenant's instances may run.
test_stack_release_is_the_platforms if {
	d := slipway.decision with input as object.union(fleet(carol, "stack"), {"tenant": "*", "name": "web"})
	d.allow
	e := slipway.decision with input as object.union(fleet(alice, "stack"), {"tenant": "*", "name": "web"})
	not e.allow
	contains(e.reason, "alice may not stack across every tenant")
}

test_tenant_rollout_by_its_member if {
	d := slipway.decision with input as object.union(fleet(alice, "rollout"), {"tenant": "acme"})
	d.allow
	e := slipway.decision with input as object.union(fleet(bob, "drift"), {"tenant": "acme"})
	not e.allow
}

test_admins_own_destroy_is_the_platform_approval if {
	d := slipway.decision with input as with_stack(req(carol, "destroy"), {"name": "web", "approval": {"policy": "never"}})
	d.allow
	not d.approval
}

test_admins_own_stateful_replace_is_the_platform_approval if {
	r := object.union(with_stack(req(carol, "deploy"), {"name": "web", "stateful": ["aws_db_instance"]}), {"plan": replace_db_plan})
	d := slipway.decision with input as r
	d.allow
	not d.approval
}

test_admins_destroy_still_follows_the_stack if {
	d := slipway.decision with input as with_stack(req(carol, "destroy"), {"name": "web", "approval": {"policy": "destructive"}})
	d.approval.groups == ["tenant:acme", "platform-admins"]
	d.approval.allowSelf == false
}

test_star_tenant_is_every_tenant if {
	d := slipway.decision with input as object.union(fleet(alice, "drift"), {"tenant": "*", "name": "*"})
	not d.allow
	e := slipway.decision with input as object.union(fleet(carol, "drift"), {"tenant": "*", "name": "*"})
	e.allow
}

test_forge_users_keyed_by_forge_kind if {
	d := slipway.decision with input as approval_of(gitea_alice, bob, ["user:alice"])
		with data.slipway.forge_users as {"gitea": {"alice-git": "alice"}}
	d.allow
	e := slipway.decision with input as approval_of(gitea_alice, bob, ["user:alice"])
		with data.slipway.forge_users as {"github": {"alice-git": "alice"}}
	not e.allow
}

# --- reads: members read their tenant, platform admins everything, anyone else nothing

read_of(actor, tenant) := {"actor": actor, "operation": "read", "tenant": tenant, "name": "*", "state": "", "stack": {}}

test_member_reads_own_tenant if {
	d := slipway.decision with input as req(alice, "read")
	d.allow
	not d.approval
}

test_read_never_waits_for_approval if {
	d := slipway.decision with input as with_stack(req(alice, "read"), {"name": "web", "approval": {"policy": "always"}})
	d.allow
	not d.approval
}

test_other_tenant_and_no_group_read_nothing if {
	some actor in [bob, mallory]
	d := slipway.decision with input as req(actor, "read")
	not d.allow
	contains(d.reason, "may not read instances of tenant acme")
}

test_nobody_but_members_reads_a_tenant if {
	every actor in [bob, mallory] {
		d := slipway.decision with input as read_of(actor, "acme")
		not d.allow
	}
}

test_admin_reads_every_tenant_and_the_fleet if {
	every t in ["acme", "other", "*"] {
		d := slipway.decision with input as read_of(carol, t)
		d.allow
	}
}

test_member_does_not_read_the_fleet if {
	d := slipway.decision with input as read_of(alice, "*")
	not d.allow
	contains(d.reason, "across every tenant")
}

# --- decisions that override a check: platform-admins, never the requester of the failed operation

failed_destroy(actor, request, requester) := object.union(req(actor, "resolve"), {
	"state": "destroy-failed",
	"request": request,
	"current": {"id": "3-e1", "kind": "destroy", "result": "failed", "failedStep": "verify-render", "requester": requester},
})

test_member_may_not_accept_render if {
	d := slipway.decision with input as failed_destroy(alice, {"acceptRender": true, "reason": "x"}, alice)
	not d.allow
	contains(d.reason, "--accept-render needs platform-admins")
}

test_member_may_not_override_any_check if {
	every field, flag in {"skipHook": "--skip-hook", "forceUnlock": "--force-unlock", "to": "--to"} {
		v := {"skipHook": true, "forceUnlock": "lock-1", "to": "destroyed"}[field]
		d := slipway.decision with input as failed_destroy(dave, {field: v}, alice)
		not d.allow
		contains(d.reason, sprintf("%s needs platform-admins", [flag]))
	}
}

test_admin_accepts_render_of_another_persons_operation if {
	d := slipway.decision with input as failed_destroy(carol, {"acceptRender": true, "reason": "reviewed"}, alice)
	d.allow
}

test_admin_may_not_accept_render_of_own_operation if {
	d := slipway.decision with input as failed_destroy(carol, {"acceptRender": true}, carol)
	not d.allow
	contains(d.reason, "--accept-render needs another platform admin: carol asked for the destroy")
}

test_service_may_not_override_a_check if {
	d := slipway.decision with input as failed_destroy(worker, {"skipHook": true}, alice)
	not d.allow
	contains(d.reason, "--skip-hook needs platform-admins")
}

test_member_keeps_plain_decisions_of_own_operation if {
	every op in {"retry", "resolve", "abandon"} {
		d := slipway.decision with input as object.union(failed_destroy(alice, {"reason": "x", "acceptRender": false, "to": ""}, alice), {"operation": op})
		d.allow
	}
}

test_other_tenant_may_not_resolve if {
	d := slipway.decision with input as failed_destroy(bob, {}, alice)
	not d.allow
}

test_dev_key_holder_resolves_own_operation if {
	root := {"kind": "person", "issuer": "local", "subject": "root", "name": "root", "groups": ["platform-admins"], "via": "dev"}
	d := slipway.decision with input as failed_destroy(root, {"skipHook": true}, root)
	d.allow
}

test_member_protects_but_only_an_admin_unprotects if {
	slipway.decision.allow with input as req(alice, "protect")
	d := slipway.decision with input as req(alice, "unprotect")
	not d.allow
	contains(d.reason, "unprotect needs platform-admins: alice is not a member")
	slipway.decision.allow with input as req(carol, "unprotect")
	not slipway.decision.allow with input as req(worker, "unprotect")
}

test_only_an_admin_overrides_the_windows if {
	r := object.union(req(alice, "deploy"), {"request": {"overrideWindow": true, "reason": "hotfix"}})
	d := slipway.decision with input as r
	not d.allow
	contains(d.reason, "--override-window needs platform-admins: alice is not a member")
	slipway.decision.allow with input as object.union(r, {"actor": carol})
	slipway.decision.allow with input as req(alice, "deploy")
}
