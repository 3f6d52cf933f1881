package logging

import (
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
)

// The fields every line about an operation carries.
const (
	KeyInstance    = "instance"
	KeyOperation   = "operation"
	KeyOperationID = "operationID"
	KeyStep        = "step"
)

// The SDK's own keys (go.temporal.io/sdk/internal/internal_logging_tags.go) that name them.
const (
	sdkWorkflowID   = "WorkflowID"
	sdkActivityType = "ActivityType"
)

var operationKeys = map[string]bool{KeyInstance: true, KeyOperation: true, KeyOperationID: true, KeyStep: true}

// stepOf is the pipeline step each activity runs in; activities outside the pipeline have none.
var stepOf = map[string]string{
	contract.ActValidateConfig: contract.Validate, contract.ActOpenMR: contract.OpenMR, contract.ActMergeMR: contract.MergeMR,
	contract.ActResolveRevision: contract.ResolveRevision, contract.ActTerraformInit: contract.TFInit, contract.ActTerraformPlan: contract.TFPlan,
	contract.ActTerraformApply: contract.TFApply, contract.ActTerraformDestroy: contract.TFDestroy, contract.ActDeployApp: contract.DeployApp,
	contract.ActRemoveApp: contract.RemoveApp, contract.ActConfigDiff: contract.ConfigDiff, contract.ActCollectLeftovers: contract.RecordFailure,
	contract.ActBootstrapSecrets: contract.BootstrapSecrets, contract.ActForgetSecrets: contract.ForgetSecrets, contract.ActAnnouncePlan: contract.Approval,
	contract.ActCloseMR: contract.Approval, contract.ActVerifyRender: contract.VerifyRender, contract.ActRecordRender: contract.VerifyRender,
	contract.ActRenderOutputs: contract.RenderOutputs,
}

// OperationFields are the instance, operation, operationID and step that a workflow ID and an
// activity type name: the entity "instance/T/N" gives the instance; a pipeline
// "instance/T/N/OP-ID/attempt-K" the operation too; the activity type the step.
func OperationFields(workflowID, activityType string) []any {
	var kv []any
	if rest, ok := strings.CutPrefix(workflowID, "instance/"); ok {
		parts := strings.Split(rest, "/")
		if len(parts) >= 2 {
			kv = append(kv, KeyInstance, parts[0]+"/"+parts[1])
		}
		if len(parts) >= 3 {
			if op, id, ok := strings.Cut(parts[2], "-"); ok {
				kv = append(kv, KeyOperation, op, KeyOperationID, id)
			}
		}
	}
	if s := stepOf[activityType]; s != "" {
		kv = append(kv, KeyStep, s)
	}
	return kv
}

// fields is kv plus the operation fields its WorkflowID and ActivityType name, without any the
// logger already has (zap would repeat a key).
func (t *Temporal) fields(kv []any) []any {
	var wfID, actType string
	for i := 0; i+1 < len(kv); i += 2 {
		switch k, _ := kv[i].(string); k {
		case sdkWorkflowID:
			wfID, _ = kv[i+1].(string)
		case sdkActivityType:
			actType, _ = kv[i+1].(string)
		}
	}
	derived := OperationFields(wfID, actType)
	if len(derived) == 0 && len(t.has) == 0 {
		return kv // most lines: nothing to add, nothing allocated
	}
	present := map[string]bool{}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && operationKeys[k] {
			present[k] = true
		}
	}
	out := make([]any, 0, len(kv)+len(derived))
	for i := 0; i < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && t.has[k] && i+1 < len(kv) {
			continue
		}
		out = append(out, kv[i:min(i+2, len(kv))]...)
	}
	for i := 0; i+1 < len(derived); i += 2 {
		if k := derived[i].(string); !present[k] && !t.has[k] {
			out = append(out, derived[i], derived[i+1])
		}
	}
	return out
}
